package capture

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/wincni/diag/gen"
)

// ngBlock builds a little-endian pcapng block around body.
func ngBlock(typ uint32, body []byte) []byte {
	for len(body)%4 != 0 {
		body = append(body, 0)
	}
	n := uint32(12 + len(body))
	b := binary.LittleEndian.AppendUint32(nil, typ)
	b = binary.LittleEndian.AppendUint32(b, n)
	b = append(b, body...)
	return binary.LittleEndian.AppendUint32(b, n)
}

func ngSHBytes() []byte {
	body := binary.LittleEndian.AppendUint32(nil, 0x1A2B3C4D)
	body = binary.LittleEndian.AppendUint16(body, 1)
	body = binary.LittleEndian.AppendUint16(body, 0)
	body = binary.LittleEndian.AppendUint64(body, ^uint64(0))
	return ngBlock(ngSHB, body)
}

func ngIDBytes(link uint16) []byte {
	body := binary.LittleEndian.AppendUint16(nil, link)
	body = binary.LittleEndian.AppendUint16(body, 0)
	body = binary.LittleEndian.AppendUint32(body, 0)
	return ngBlock(ngIDB, body)
}

func ngEPBHeader(iface, caplen, wire uint32) []byte {
	b := binary.LittleEndian.AppendUint32(nil, iface)
	b = binary.LittleEndian.AppendUint64(b, 0)
	b = binary.LittleEndian.AppendUint32(b, caplen)
	return binary.LittleEndian.AppendUint32(b, wire)
}

func ngEPBytes(iface uint32, data []byte) []byte {
	return ngBlock(ngEPB, append(ngEPBHeader(iface, uint32(len(data)), uint32(len(data))), data...))
}

// zeros is n zero bytes, made as they are read.
type zeros struct{ n int64 }

func (z *zeros) Read(p []byte) (int, error) {
	if z.n == 0 {
		return 0, io.EOF
	}
	m := int(min(int64(len(p)), z.n))
	clear(p[:m])
	z.n -= int64(m)
	return m, nil
}

// readWithin reads every packet of r with lim, serially, and reports the
// packets, the notes and the bytes allocated meanwhile.
func readWithin(t *testing.T, r io.Reader, lim Limits) (pkts [][]byte, notes []string, alloc uint64, err error) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	src, err := NewSourceLimits(r, "hostile", lim)
	if err != nil {
		return nil, nil, 0, err
	}
	var p Packet
	for {
		err = src.Next(&p)
		if errors.Is(err, io.EOF) {
			err = nil
			break
		}
		if err != nil {
			break
		}
		pkts = append(pkts, bytes.Clone(p.Data))
	}
	runtime.ReadMemStats(&after)
	return pkts, src.Notes(), after.TotalAlloc - before.TotalAlloc, err
}

// A pcapng packet block larger than the limit is discarded as it streams
// by: 64 MiB of packet costs no 64 MiB buffer, the packets around it are
// read, and the note names the size and the flag.
func TestOversizePcapngPacketSkipped(t *testing.T) {
	frame := healthy()[0].Bytes()
	const big = 64 << 20
	head := append(append(ngSHBytes(), ngIDBytes(1)...), ngEPBytes(0, frame)...)
	bigHead := binary.LittleEndian.AppendUint32(nil, ngEPB)
	bigHead = binary.LittleEndian.AppendUint32(bigHead, 32+big)
	bigHead = append(bigHead, ngEPBHeader(0, big, big)...)
	tail := binary.LittleEndian.AppendUint32(nil, 32+big)
	tail = append(tail, ngEPBytes(0, frame)...)
	r := io.MultiReader(bytes.NewReader(head), bytes.NewReader(bigHead), &zeros{big}, bytes.NewReader(tail))
	pkts, notes, alloc, err := readWithin(t, r, Limits{MaxPacketSize: 4096})
	if err != nil {
		t.Fatal(err)
	}
	if len(pkts) != 2 || !bytes.Equal(pkts[0], frame) || !bytes.Equal(pkts[1], frame) {
		t.Errorf("%d packets around the skipped one, want the 2", len(pkts))
	}
	if alloc > 8<<20 {
		t.Errorf("%d MiB allocated reading past a 64 MiB packet", alloc>>20)
	}
	want := fmt.Sprintf("1 packet of %d bytes (at byte %d) larger than the 4096-byte packet limit skipped unread; --max-packet-size", big, len(head))
	if len(notes) != 1 || !strings.Contains(notes[0], want) || !strings.HasPrefix(notes[0], "hostile: ") {
		t.Errorf("notes %q, want one with %q", notes, want)
	}
}

// The same for a classic pcap record, straight and gzip'd.
func TestOversizePcapRecordSkipped(t *testing.T) {
	frame := healthy()[0].Bytes()
	good := pcapBytes(t, false, frame)
	const big = 15 << 20
	rec := make([]byte, 16)
	binary.LittleEndian.PutUint32(rec[8:], big)
	binary.LittleEndian.PutUint32(rec[12:], big)
	one := good[24:]
	r := io.MultiReader(bytes.NewReader(good), bytes.NewReader(rec), &zeros{big}, bytes.NewReader(one))
	pkts, notes, alloc, err := readWithin(t, r, Limits{MaxPacketSize: 4096})
	if err != nil {
		t.Fatal(err)
	}
	if len(pkts) != 2 || !bytes.Equal(pkts[1], frame) {
		t.Errorf("%d packets around the skipped one, want the 2", len(pkts))
	}
	if alloc > 6<<20 {
		t.Errorf("%d MiB allocated reading past a 15 MiB record", alloc>>20)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], fmt.Sprintf("1 packet of %d bytes (at byte %d)", big, len(good))) || !strings.Contains(notes[0], FlagMaxPacketSize) {
		t.Errorf("notes %q", notes)
	}

	// Whole file gzip'd: the limit applies to what it inflates to.
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(good)
	w.Write(rec)
	io.Copy(w, &zeros{big})
	w.Write(one)
	w.Close()
	pkts, notes, alloc, err = readWithin(t, bytes.NewReader(gz.Bytes()), Limits{MaxPacketSize: 4096})
	if err != nil || len(pkts) != 2 || len(notes) != 1 || alloc > 8<<20 {
		t.Errorf("gzip'd: %v, %d packets, notes %q, %d MiB allocated", err, len(pkts), notes, alloc>>20)
	}

	// A length past 16 MiB is no packet: the file is damaged there; the
	// packets before it are read and a note says where.
	binary.LittleEndian.PutUint32(rec[8:], 1<<30)
	pkts, notes, _, err = readWithin(t, io.MultiReader(bytes.NewReader(good), bytes.NewReader(rec)), Limits{MaxPacketSize: 4096})
	if err != nil || len(pkts) != 1 || !hasString(notes, fmt.Sprintf("damaged or corrupt at packet 2 (its record starts at byte %d)", len(good))) || !hasString(notes, "1073741824 bytes") {
		t.Errorf("a 1 GiB record: %v, %d packets, notes %q", err, len(pkts), notes)
	}
	// A skipped record cut off by the end of the file is a file cut short.
	pkts, notes, _, err = readWithin(t, io.MultiReader(bytes.NewReader(good), bytes.NewReader(rec[:8]), bytes.NewReader([]byte{0, 0, 0, 1, 0, 0, 0, 1}), &zeros{100}), Limits{MaxPacketSize: 4096})
	if err != nil || len(pkts) != 1 || !hasString(notes, fmt.Sprintf("cut short in the middle of packet 2 (its record starts at byte %d; the file ends at byte %d)", len(good), len(good)+116)) {
		t.Errorf("a skipped record cut off: %v, %d packets, notes %q", err, len(pkts), notes)
	}
}

func hasString(list []string, s string) bool {
	for _, x := range list {
		if strings.Contains(x, s) {
			return true
		}
	}
	return false
}

// Interfaces past the limit are counted, not kept, and their packets are
// skipped; the packets of the kept ones are read.
func TestPcapngInterfacesBounded(t *testing.T) {
	frame := healthy()[0].Bytes()
	data := ngSHBytes()
	for i := 0; i < 10; i++ {
		data = append(data, ngIDBytes(1)...)
	}
	data = append(data, ngEPBytes(1, frame)...)
	data = append(data, ngEPBytes(7, frame)...)
	src, err := NewSourceLimits(bytes.NewReader(data), "ifaces.pcapng", Limits{MaxInterfaces: 3})
	if err != nil {
		t.Fatal(err)
	}
	a := NewAnalyzer(Options{})
	if err := a.ReadSource(src, "ifaces.pcapng"); err != nil {
		t.Fatal(err)
	}
	if n := len(src.ng.ifaces); n != 3 {
		t.Errorf("%d interfaces kept, limit 3", n)
	}
	r := a.Finish("x")
	if r.Packets != 1 || r.Files[0].SkippedPackets != 1 || r.Files[0].SkippedInterfaces != 7 {
		t.Errorf("%d packets read, file %+v", r.Packets, r.Files[0])
	}
	if !hasNote(r, "ifaces.pcapng: 7 pcapng interfaces past the limit of 3 per section (the first is interface 3) skipped with the packets on them (1); --max-interfaces") {
		t.Errorf("notes %q", r.Notes)
	}
	// A packet on an interface no block described is damage: the packets
	// before it are read, and a note says where.
	src, err = NewSourceLimits(bytes.NewReader(append(data, ngEPBytes(10, frame)...)), "x", Limits{MaxInterfaces: 3})
	if err != nil {
		t.Fatal(err)
	}
	a = NewAnalyzer(Options{})
	if err := a.ReadSource(src, "x"); err != nil {
		t.Fatal(err)
	}
	if r := a.Finish("x"); r.Packets != 1 || !hasNote(r, "damaged or corrupt at packet 3 (its block starts at byte") || !hasNote(r, "interface 10, not present in the section (it has 10)") {
		t.Errorf("a packet on interface 10 of 10: %d packets, notes %q", r.Packets, r.Notes)
	}
}

func hasNote(r *Report, s string) bool {
	for _, n := range r.Notes {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// Past MaxFlows flows are counted together; no finding is judged on what
// was not tracked: retransmitted SYNs of an untracked flow raise no CAP-02,
// and a plain twin of an untracked encapsulated flow raises no CAP-01.
func TestFlowsBounded(t *testing.T) {
	var pkts []gen.Pkt
	for i := 0; i < 40; i++ {
		pkts = append(pkts, gen.Handshake(time.Duration(i)*time.Second, linuxVTEP, winVTEP, linuxPod, winPod, uint16(40000+i), 80, 4096, linuxMAC, winMAC)...)
	}
	for i, at := range []time.Duration{0, time.Second, 3 * time.Second} {
		p := fwd(50*time.Second + at)
		p.InnerDst, p.Sport, p.Dport, p.TCPFlags, p.IPID = "100.244.206.68", 54398, 80, "S", uint16(100+i)
		pkts = append(pkts, p)
	}
	twin := fwd(60 * time.Second)
	pkts = append(pkts, twin)
	twin.Plain, twin.At = true, 61*time.Second
	pkts = append(pkts, twin)
	path := filepath.Join(t.TempDir(), "flows.pcap")
	if err := gen.WritePcap(path, pkts); err != nil {
		t.Fatal(err)
	}
	full := NewAnalyzer(Options{})
	if err := full.ReadFile(path); err != nil {
		t.Fatal(err)
	}
	if got := ids(full.Finish("x")); strings.Join(got, " ") != "CAP-02" {
		t.Fatalf("unbounded: %v, want CAP-02 (the fixture is wrong)", got)
	}

	a := NewAnalyzer(Options{Limits: Limits{MaxFlows: 10}})
	if err := a.ReadFile(path); err != nil {
		t.Fatal(err)
	}
	r := a.Finish("x")
	if len(r.Flows) != 10 || a.fastF.n != 10 {
		t.Errorf("%d flows reported, %d held; limit 10", len(r.Flows), a.fastF.n)
	}
	u := r.UntrackedFlows
	if u == nil || u.Flows < 30 || u.Flows > 33 || u.SYNs != 33 || u.Packets != int64(len(pkts)-1-10*len(healthy())) {
		t.Fatalf("untracked %+v (of %d packets)", u, len(pkts))
	}
	if len(r.Findings) != 0 {
		t.Errorf("findings on untracked flows: %v", summaries(r))
	}
	if !hasNote(r, "Inner flows past the limit of 10 (--max-flows raises it): about") || !hasNote(r, "judge the tracked flows only: the untracked ones carried 33 SYNs") {
		t.Errorf("notes %q", r.Notes)
	}
}

// Past MaxTunnels tunnels are counted together, their flows still tracked.
func TestTunnelsBounded(t *testing.T) {
	pkts := with(healthy(), gen.Handshake(time.Second, linuxVTEP, "10.20.30.99", linuxPod, "100.244.99.5", 44837, 80, 4096, linuxMAC, winMAC)...)
	path := filepath.Join(t.TempDir(), "tunnels.pcap")
	if err := gen.WritePcap(path, pkts); err != nil {
		t.Fatal(err)
	}
	a := NewAnalyzer(Options{Limits: Limits{MaxTunnels: 2}})
	if err := a.ReadFile(path); err != nil {
		t.Fatal(err)
	}
	r := a.Finish("x")
	if len(r.Tunnels) != 2 || r.UntrackedTunnels == nil || r.UntrackedTunnels.Tunnels != 2 || len(r.Flows) != 2 {
		t.Errorf("%d tunnels, untracked %+v, %d flows", len(r.Tunnels), r.UntrackedTunnels, len(r.Flows))
	}
	if !hasNote(r, "Tunnels past the limit of 2 (--max-tunnels raises it): about 2 more tunnels") {
		t.Errorf("notes %q", r.Notes)
	}
}

// The pcapng reader gives what gopacket's gives: interfaces of several
// link types and timestamp resolutions, packet IDs and directions, a
// second section, a block diag does not use.
func TestPcapngMatchesGopacket(t *testing.T) {
	frames := healthy()
	var buf bytes.Buffer
	w, err := pcapgo.NewNgWriterInterface(&buf, pcapgo.NgInterface{Name: "eth0", LinkType: layers.LinkTypeEthernet, SnapLength: 65535, TimestampResolution: 9},
		pcapgo.NgWriterOptions{SectionInfo: pcapgo.NgSectionInfo{Application: "test"}})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := w.AddInterface(pcapgo.NgInterface{Name: "raw", LinkType: layers.LinkTypeRaw, SnapLength: 100, TimestampResolution: 6})
	for i, p := range frames {
		data, iface := p.Bytes(), 0
		if i%2 == 1 {
			data, iface = data[14:], raw
		}
		ci := gopacket.CaptureInfo{Timestamp: time.Unix(1700000000, int64(i)*123457), CaptureLength: min(len(data), 100), Length: len(data), InterfaceIndex: iface}
		id := uint64(1000 + i)
		opts := pcapgo.NgPacketOptions{PacketID: &id, Flags: &pcapgo.NgEpbFlags{Direction: pcapgo.NgEpbFlag(1 + i%2)}}
		if err := w.WritePacketWithOptions(ci, data[:ci.CaptureLength], opts); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	data := append(buf.Bytes(), ngBlock(4, make([]byte, 40))...) // a name resolution block
	data = append(data, ngSHBytes()...)
	data = append(data, ngIDBytes(uint16(layers.LinkTypeEthernet))...)
	data = append(data, ngEPBytes(0, frames[0].Bytes())...)

	ng, err := pcapgo.NewNgReader(bytes.NewReader(data), pcapgo.NgReaderOptions{WantMixedLinkType: true})
	if err != nil {
		t.Fatal(err)
	}
	src, err := NewSource(bytes.NewReader(data), "x")
	if err != nil {
		t.Fatal(err)
	}
	var p Packet
	for i := 0; ; i++ {
		want, ci, opts, werr := ng.ReadPacketDataWithOptions()
		err := src.Next(&p)
		if errors.Is(werr, io.EOF) || errors.Is(err, io.EOF) {
			if !errors.Is(werr, io.EOF) || !errors.Is(err, io.EOF) {
				t.Fatalf("packet %d: gopacket %v, diag %v", i, werr, err)
			}
			if i != len(frames)+1 {
				t.Errorf("%d packets", i)
			}
			return
		}
		if werr != nil || err != nil {
			t.Fatalf("packet %d: gopacket %v, diag %v", i, werr, err)
		}
		var id uint64
		var dir int8
		if opts.PacketID != nil {
			id = *opts.PacketID
		}
		if opts.Flags != nil {
			dir = map[pcapgo.NgEpbFlag]int8{1: -1, 2: 1}[opts.Flags.Direction]
		}
		if !bytes.Equal(p.Data, want) || p.Length != ci.Length || !p.Time.Equal(ci.Timestamp) || p.Interface != ci.InterfaceIndex ||
			p.LinkType != LinkType(ci.AncillaryData[0].(layers.LinkType)) || p.PacketID != id || p.Outbound != dir {
			t.Errorf("packet %d: %d bytes, len %d, %v, iface %d, %v, id %d, dir %d; gopacket %d, %d, %v, %d, %v, %d, %d", i,
				len(p.Data), p.Length, p.Time, p.Interface, p.LinkType, p.PacketID, p.Outbound,
				len(want), ci.Length, ci.Timestamp, ci.InterfaceIndex, ci.AncillaryData[0], id, dir)
		}
		if i == 1 && src.InterfaceName(1) != "raw" {
			t.Errorf("interface 1 named %q", src.InterfaceName(1))
		}
	}
}
