package capture

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/wincni/diag/capture/wire"
	"github.com/wincni/diag/gen"
)

func readAll(t *testing.T, r io.Reader, name string, opts Options) (*Report, error) {
	t.Helper()
	src, err := NewSource(r, name)
	if err != nil {
		return nil, err
	}
	a := NewAnalyzer(opts)
	if err := a.ReadSource(src, name); err != nil {
		return nil, err
	}
	return a.Finish("x"), nil
}

func pcapBytes(t *testing.T, nanos bool, pkts ...[]byte) []byte {
	var buf bytes.Buffer
	w := pcapgo.NewWriter(&buf)
	if nanos {
		w = pcapgo.NewWriterNanos(&buf)
	}
	w.WriteFileHeader(65535, layers.LinkTypeEthernet)
	for i, p := range pkts {
		w.WritePacket(gopacket.CaptureInfo{Timestamp: time.Unix(1700000000, int64(i)*1000), CaptureLength: len(p), Length: len(p)}, p)
	}
	return buf.Bytes()
}

// toBigEndian rewrites a little-endian pcap as a big-endian one.
func toBigEndian(le []byte) []byte {
	be := bytes.Clone(le)
	swap32 := func(off int) { binary.BigEndian.PutUint32(be[off:], binary.LittleEndian.Uint32(le[off:])) }
	swap16 := func(off int) { binary.BigEndian.PutUint16(be[off:], binary.LittleEndian.Uint16(le[off:])) }
	swap32(0)
	swap16(4)
	swap16(6)
	for _, off := range []int{8, 12, 16, 20} {
		swap32(off)
	}
	for off := 24; off+16 <= len(le); {
		incl := int(binary.LittleEndian.Uint32(le[off+8:]))
		for k := 0; k < 16; k += 4 {
			swap32(off + k)
		}
		off += 16 + incl
	}
	return be
}

func TestPcapVariants(t *testing.T) {
	pkts := healthy()
	var frames [][]byte
	for _, p := range pkts {
		frames = append(frames, p.Bytes())
	}
	for name, data := range map[string][]byte{
		"little-endian µs": pcapBytes(t, false, frames...),
		"little-endian ns": pcapBytes(t, true, frames...),
		"big-endian µs":    toBigEndian(pcapBytes(t, false, frames...)),
		"big-endian ns":    toBigEndian(pcapBytes(t, true, frames...)),
	} {
		r, err := readAll(t, bytes.NewReader(data), name, Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if r.Packets != int64(len(frames)) || r.VXLANPackets != int64(len(frames)) || len(r.Flows) != 1 || r.Flows[0].State != "closed" {
			t.Errorf("%s: %d packets, %d vxlan, flows %+v", name, r.Packets, r.VXLANPackets, r.Flows)
		}
	}
}

// A pcapng with several interfaces of different link types, as Windows
// tools write them: Ethernet, raw IP, and Linux cooked v2 (tcpdump -i any).
func TestPcapngMixedLinkTypes(t *testing.T) {
	eth := healthy()[0].Bytes()
	var buf bytes.Buffer
	w, err := pcapgo.NewNgWriter(&buf, layers.LinkTypeEthernet)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := w.AddInterface(pcapgo.NgInterface{Name: "raw", LinkType: layers.LinkTypeRaw, SnapLength: 65535})
	sll2, _ := w.AddInterface(pcapgo.NgInterface{Name: "any", LinkType: 276, SnapLength: 65535})
	sll, _ := w.AddInterface(pcapgo.NgInterface{Name: "cooked", LinkType: layers.LinkTypeLinuxSLL, SnapLength: 65535})
	ip := eth[14:]
	sll2hdr := append([]byte{0x08, 0x00, 0, 0, 0, 0, 0, 3, 0, 1, 0, 6, 8, 0, 0x27, 1, 2, 3, 0, 0}, ip...)
	sllhdr := append([]byte{0, 0, 0, 1, 0, 6, 8, 0, 0x27, 1, 2, 3, 0, 0, 0x08, 0x00}, ip...)
	for i, p := range []struct {
		iface int
		data  []byte
	}{{0, eth}, {raw, ip}, {sll2, sll2hdr}, {sll, sllhdr}} {
		ci := gopacket.CaptureInfo{Timestamp: time.Unix(1700000000, int64(i)), CaptureLength: len(p.data), Length: len(p.data), InterfaceIndex: p.iface}
		if err := w.WritePacket(ci, p.data); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	r, err := readAll(t, bytes.NewReader(buf.Bytes()), "mixed.pcapng", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Packets != 4 || r.VXLANPackets != 4 {
		t.Errorf("%d packets, %d vxlan (mixed link types must all be read)", r.Packets, r.VXLANPackets)
	}
}

func TestBadCaptureFiles(t *testing.T) {
	good := pcapBytes(t, false, healthy()[0].Bytes(), healthy()[1].Bytes())
	cases := map[string]struct {
		data []byte
		want string
	}{
		"garbage":        {[]byte("PS C:\\> pktmon stop\r\n"), "not a pcap or pcapng file"},
		"empty":          {nil, "too short"},
		"short":          {good[:10], "pcap: 10 bytes, too short for the 24-byte pcap file header"},
		"pcapng garbage": {append(append([]byte{}, wire.MagicPcapng[:]...), bytes.Repeat([]byte{0xff}, 40)...), "pcapng"},
	}
	for name, c := range cases {
		_, err := readAll(t, bytes.NewReader(c.data), "bad.pcap", Options{})
		var ie *InputError
		if err == nil || !errors.As(err, &ie) || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "bad.pcap") {
			t.Errorf("%s: %v", name, err)
		}
	}
	// The system's words differ ("no such file", "File not found."): the
	// error is the not-exist one, naming the file.
	if _, err := Open(filepath.Join(t.TempDir(), "missing.pcapng")); err == nil || !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "missing.pcapng") {
		t.Errorf("missing: %v", err)
	}
}

// Memory follows flows, not packets: a long capture of few flows keeps
// few objects.
func TestStreaming(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bench.pcap")
	f, _ := os.Create(path)
	if err := gen.WriteBenchCapture(f, 200000, 100); err != nil {
		t.Fatal(err)
	}
	f.Close()
	a := NewAnalyzer(Options{ExpectedVNI: 4096})
	if err := a.ReadFile(path); err != nil {
		t.Fatal(err)
	}
	r := a.Finish("x")
	if r.Packets != 200000 || r.VXLANPackets != 200000 {
		t.Fatalf("%d packets, %d vxlan", r.Packets, r.VXLANPackets)
	}
	if len(r.Flows) > 100*(200000/100/65+1) || len(r.Tunnels) > 16 {
		t.Errorf("%d flows, %d tunnels for 100 concurrent flows", len(r.Flows), len(r.Tunnels))
	}
	if len(r.Findings) != 0 {
		t.Errorf("the benchmark capture is healthy, but: %v", summaries(r))
	}
}
