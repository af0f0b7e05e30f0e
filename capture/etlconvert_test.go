package capture

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wincni/diag/capture/etl/etltest"
)

const realETLDir = "../../shared/etl/"

// epbComments walks a little-endian pcapng file and returns each
// enhanced packet block's comment, interface names in order, and the
// packet ids.
func epbComments(t *testing.T, b []byte) (comments, ifaces []string, ids []uint64) {
	t.Helper()
	le := binary.LittleEndian
	opts := func(o []byte, f func(code uint16, v []byte)) {
		for len(o) >= 4 {
			code, n := le.Uint16(o), int(le.Uint16(o[2:]))
			if code == 0 || 4+n > len(o) {
				return
			}
			f(code, o[4:4+n])
			o = o[4+(n+3)&^3:]
		}
	}
	for off := 0; off+12 <= len(b); {
		typ, n := le.Uint32(b[off:]), int(le.Uint32(b[off+4:]))
		if n < 12 || off+n > len(b) {
			t.Fatalf("bad block at %d", off)
		}
		body := b[off+8 : off+n-4]
		switch typ {
		case 1:
			name := ""
			opts(body[8:], func(c uint16, v []byte) {
				if c == 2 {
					name = string(v)
				}
			})
			ifaces = append(ifaces, name)
		case 6:
			capLen := int(le.Uint32(body[12:]))
			var c string
			var id uint64
			opts(body[20+(capLen+3)&^3:], func(code uint16, v []byte) {
				switch code {
				case 1:
					c = string(v)
				case 5:
					id = le.Uint64(v)
				}
			})
			comments, ids = append(comments, c), append(ids, id)
		}
		off += n
	}
	return comments, ifaces, ids
}

func readPackets(t *testing.T, b []byte, name string) []Packet {
	t.Helper()
	src, err := NewSource(bytes.NewReader(b), name)
	if err != nil {
		t.Fatal(err)
	}
	var out []Packet
	for {
		var p Packet
		err := src.Next(&p)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		p.Data = append([]byte(nil), p.Data...)
		out = append(out, p)
	}
	if n := src.Notes(); len(n) > 0 {
		t.Errorf("%s: notes %q", name, n)
	}
	return out
}

func TestConvertETLDemikernel(t *testing.T) {
	in, err := os.ReadFile(realETLDir + "demikernel.PktMon.etl")
	if err != nil {
		t.Skipf("no real ETL file (%v): the shared inputs are not on this machine", err)
	}
	cap, err := os.ReadFile(realETLDir + "demikernel.PktMon.cap")
	if err != nil {
		t.Skipf("no pcapng beside it: %v", err)
	}
	var out bytes.Buffer
	st, err := ConvertETL(bytes.NewReader(in), "demikernel.PktMon.etl", &out, "diag test")
	if err != nil {
		t.Fatal(err)
	}
	if st.Packets != 114 || st.Interfaces != 4 || st.Drops != 0 || len(st.Notes) != 0 {
		t.Errorf("stats = %+v", st)
	}
	got, want := readPackets(t, out.Bytes(), "converted"), readPackets(t, cap, "etl2pcap's")
	if len(got) != len(want) {
		t.Fatalf("%d packets, the Windows conversion has %d", len(got), len(want))
	}
	var bytesGot int
	for i := range got {
		g, w := got[i], want[i]
		if !bytes.Equal(g.Data, w.Data) || g.Length != w.Length {
			t.Errorf("packet %d: %d/%d bytes differ from the Windows conversion's %d/%d", i+1, len(g.Data), g.Length, len(w.Data), w.Length)
		}
		// The Windows conversion keeps microseconds; ours 100 ns.
		if d := g.Time.Sub(w.Time); d < 0 || d >= time.Microsecond {
			t.Errorf("packet %d at %v, the Windows conversion's at %v", i+1, g.Time, w.Time)
		}
		bytesGot += len(g.Data)
	}
	if bytesGot != 11172 {
		t.Errorf("%d bytes, want 11172", bytesGot)
	}
	comments, ifaces, ids := epbComments(t, out.Bytes())
	if len(ifaces) != 4 || !strings.Contains(strings.Join(ifaces, "|"), "Mellanox ConnectX-4 Lx Virtual Ethernet Adapter #2 [48]") {
		t.Errorf("interfaces = %q", ifaces)
	}
	if len(comments) != 114 || !strings.HasPrefix(comments[0], "Microsoft Hyper-V Network Adapter #3 [59], Rx") || ids[0] != 0x105a26 {
		t.Errorf("first comment %q, id %#x", comments[0], ids[0])
	}
}

func TestConvertETLDrops(t *testing.T) {
	var in bytes.Buffer
	w, err := etltest.NewWriter(&in, etltest.Options{Compress: true})
	if err != nil {
		t.Fatal(err)
	}
	w.ValueMap("DropReason", map[uint32]string{12: "VFP Rule Drop"})
	w.Component(etltest.Component{ID: 4, Type: 5, Name: "vmswitch.sys", Description: "Container NIC 5e1d", VSwitch: "cbr0"})
	w.Component(etltest.Component{ID: 30, Type: 11, Name: "tcpip.sys", Description: "TCP/IPv4 - L3/L4"})
	data := ipv4UDP(t, "10.244.1.5", "10.244.2.7", 40000, 53)
	w.Packet(etltest.Packet{GroupID: 9, Type: 1, Component: 4, Direction: 5, Data: data})
	w.Packet(etltest.Packet{At: time.Millisecond, GroupID: 9, Appearance: 2, Type: 1, Component: 4, Direction: 6, Dropped: true,
		DropReason: 12, DropLocation: 0xE0006005, Data: data[:40], OriginalSize: len(data)})
	w.Packet(etltest.Packet{At: 2 * time.Millisecond, GroupID: 10, Type: 3, Component: 30, Direction: 2, Data: data[14:]})
	w.Packet(etltest.Packet{At: 3 * time.Millisecond, GroupID: 11, Type: 6, Component: 30, Data: data[34:]}) // UDP payload type: no link type
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	st, err := ConvertETL(&in, "drops.etl", &out, "diag test")
	if err != nil {
		t.Fatal(err)
	}
	if st.Packets != 3 || st.Drops != 1 || st.Interfaces != 2 || st.Skipped != 1 || len(st.Notes) != 1 {
		t.Errorf("stats = %+v", st)
	}
	comments, ifaces, _ := epbComments(t, out.Bytes())
	wantComments := []string{
		"Container NIC 5e1d (vSwitch cbr0) [4], Ingress",
		"Container NIC 5e1d (vSwitch cbr0) [4], Egress; drop: VFP Rule Drop at VFP 0xE0006005",
		"TCP/IPv4 - L3/L4 [30], Out",
	}
	if strings.Join(comments, "\n") != strings.Join(wantComments, "\n") {
		t.Errorf("comments:\n%s\nwant:\n%s", strings.Join(comments, "\n"), strings.Join(wantComments, "\n"))
	}
	if strings.Join(ifaces, "|") != "Container NIC 5e1d [4]|TCP/IPv4 - L3/L4 [30]" {
		t.Errorf("interfaces = %q", ifaces)
	}
	pkts := readPackets(t, out.Bytes(), "converted")
	if len(pkts) != 3 || pkts[1].Length != len(data) || len(pkts[1].Data) != 40 || pkts[2].LinkType != LinkTypeRaw || pkts[1].Outbound != 1 || pkts[0].Outbound != -1 {
		t.Errorf("packets = %+v", pkts)
	}
	if _, err := ConvertETL(strings.NewReader("not an etl file, just text, long enough to be read as a buffer header....."), "x.etl", io.Discard, ""); err == nil {
		t.Error("text converted")
	} else if ie := (*InputError)(nil); !errors.As(err, &ie) {
		t.Errorf("err %v is not an InputError", err)
	}
}

// TestConvertETLTshark has tshark read the converted demikernel file.
func TestConvertETLTshark(t *testing.T) {
	tshark, err := exec.LookPath("tshark")
	if err != nil {
		t.Skip("tshark is not on PATH: the converted file is checked by diag's own reader only")
	}
	if _, err := os.Stat(realETLDir + "demikernel.PktMon.etl"); err != nil {
		t.Skipf("no real ETL file: %v", err)
	}
	out := filepath.Join(t.TempDir(), "out.pcapng")
	if _, err := ConvertETLFile(context.Background(), realETLDir+"demikernel.PktMon.etl", out, "diag test"); err != nil {
		t.Fatal(err)
	}
	fields := func(path string) []string {
		b, err := exec.Command(tshark, "-n", "-r", path, "-T", "fields", "-e", "frame.cap_len", "-e", "frame.len", "-e", "data.data", "-e", "ip.src", "-e", "ip.dst", "-e", "icmp.seq").Output()
		if err != nil {
			t.Fatalf("tshark -r %s: %v: %s", path, err, b)
		}
		return strings.Split(strings.TrimSpace(string(b)), "\n")
	}
	got, want := fields(out), fields(realETLDir+"demikernel.PktMon.cap")
	if len(got) != 114 {
		t.Fatalf("tshark reads %d packets, want 114", len(got))
	}
	total := 0
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("packet %d: tshark reads %q, from the Windows conversion %q", i+1, got[i], want[i])
		}
		n, _ := strconv.Atoi(strings.Fields(got[i])[0])
		total += n
	}
	if total != 11172 {
		t.Errorf("tshark counts %d captured bytes, want 11172", total)
	}
	b, err := exec.Command(tshark, "-n", "-r", out, "-T", "fields", "-e", "frame.comment", "-e", "frame.interface_name", "-c", "1").Output()
	if err != nil || !strings.Contains(string(b), "Rx") || !strings.Contains(string(b), "[59]") {
		t.Errorf("tshark's comment and interface of packet 1: %q (%v)", b, err)
	}
}

// ipv4UDP is an Ethernet frame of a UDP datagram with 12 payload bytes.
func ipv4UDP(t *testing.T, src, dst string, sport, dport uint16) []byte {
	t.Helper()
	b := make([]byte, 14+20+8+12)
	copy(b[0:], []byte{0x00, 0x15, 0x5d, 0, 0, 1, 0x00, 0x15, 0x5d, 0, 0, 2, 0x08, 0x00})
	ip := b[14:]
	ip[0], ip[8], ip[9] = 0x45, 64, 17
	binary.BigEndian.PutUint16(ip[2:], 40)
	copy(ip[12:], parseV4(t, src))
	copy(ip[16:], parseV4(t, dst))
	binary.BigEndian.PutUint16(ip[20:], sport)
	binary.BigEndian.PutUint16(ip[22:], dport)
	binary.BigEndian.PutUint16(ip[24:], 20)
	return b
}

func parseV4(t *testing.T, s string) []byte {
	t.Helper()
	var out []byte
	for _, p := range strings.Split(s, ".") {
		n, err := strconv.Atoi(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, byte(n))
	}
	return out
}

// A conversion whose context ends (Ctrl-C) stops with the context's error
// and leaves the output as it was: no file, no temporary beside it.
func TestConvertETLFileStopsWithItsContext(t *testing.T) {
	dir := t.TempDir()
	var in bytes.Buffer
	w, err := etltest.NewWriter(&in, etltest.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w.Component(etltest.Component{ID: 4, Type: 5, Name: "vmswitch.sys", Description: "Container NIC 5e1d"})
	w.Packet(etltest.Packet{GroupID: 1, Type: 1, Component: 4, Direction: 5, Data: ipv4UDP(t, "10.244.1.5", "10.244.2.7", 40000, 53)})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "PktMon.etl")
	if err := os.WriteFile(src, in.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.pcapng")
	if _, err := ConvertETLFile(context.Background(), src, out, "diag test"); err != nil {
		t.Fatalf("the file does not convert: %v", err)
	}
	os.Remove(out)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ConvertETLFile(ctx, src, out, "diag test"); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled conversion: %v, want context.Canceled", err)
	}
	if names, _ := filepath.Glob(filepath.Join(dir, "*.pcapng")); len(names) != 0 {
		t.Errorf("left behind: %v", names)
	}
}
