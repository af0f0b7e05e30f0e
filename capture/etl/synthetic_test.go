package etl

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/wincni/diag/capture/etl/etltest"
)

var fixtureStart = time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)

// frame is an Ethernet/IPv4/UDP frame of n bytes in all, its last payload
// byte set to seq so that frames differ.
func frame(n int, seq byte) []byte {
	b := make([]byte, n)
	copy(b, []byte{0, 0x15, 0x5d, 1, 2, 3, 0, 0x15, 0x5d, 4, 5, 6, 0x08, 0x00, 0x45})
	b[23] = 17
	b[n-1] = seq
	return b
}

// fixture writes a file with two components, the DropReason map, and
// packets on two processors whose buffers interleave out of time order:
// processor 1's events (later in time) reach the file first.
func fixture(t testing.TB, compress bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := etltest.NewWriter(&buf, etltest.Options{Start: fixtureStart, Compress: compress, BufferSize: 1024})
	if err != nil {
		t.Fatal(err)
	}
	w.ValueMap("DropReason", map[uint32]string{0: "Unspecified", 5: "Filtered VLAN", 9: "VFP drop"})
	w.Component(etltest.Component{ID: 7, Type: 2, Name: "netvsc.sys", Description: "Microsoft Hyper-V Network Adapter"})
	w.Component(etltest.Component{ID: 9, Type: 5, Name: "vmswitch.sys", Description: "Container NIC 1a2b", VSwitch: "cbr0"})
	for i := 0; i < 40; i++ {
		proc := 0
		if i >= 20 {
			proc = 1
		}
		p := etltest.Packet{At: time.Duration(i) * time.Millisecond, Processor: proc, GroupID: uint64(100 + i/2), Number: 1,
			Appearance: uint16(1 + i%2), Direction: 3, Type: 1, Component: 7, Edge: 1, Data: frame(60+i, byte(i))}
		if i%2 == 1 {
			p.Component, p.Direction = 9, 5
		}
		if i == 33 {
			p.Dropped, p.DropReason, p.DropLocation = true, 9, 0xE0006001
			p.OriginalSize, p.Data = 1400, p.Data[:50]
		}
		w.Packet(p)
	}
	// Processor 1's buffers go first: flush it by closing in order would
	// write processor 0 first, so rebuild the order by hand.
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return swapProcessors(t, buf.Bytes())
}

// swapProcessors moves the buffers of processor 1 before those of
// processor 0 (buffer 0 stays first), the way per-processor buffers reach
// a file out of time order.
func swapProcessors(t testing.TB, b []byte) []byte {
	t.Helper()
	first := b[:1024]
	var p0, p1 []byte
	for off := 1024; off < len(b); {
		n := int(binary.LittleEndian.Uint32(b[off:]))
		if binary.LittleEndian.Uint16(b[off+0x28:]) == 1 {
			p1 = append(p1, b[off:off+n]...)
		} else {
			p0 = append(p0, b[off:off+n]...)
		}
		off += n
	}
	return append(append(append([]byte(nil), first...), p1...), p0...)
}

func readAll(t testing.TB, b []byte, lim Limits) (*Reader, []Packet) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(b), "fixture.etl", lim)
	if err != nil {
		t.Fatal(err)
	}
	var out []Packet
	for {
		p, err := r.Next()
		if err == io.EOF {
			return r, out
		}
		if err != nil {
			t.Fatal(err)
		}
		c := *p
		c.Data = append([]byte(nil), p.Data...)
		out = append(out, c)
	}
}

func TestSyntheticFile(t *testing.T) {
	for _, compress := range []bool{false, true} {
		name := "uncompressed"
		if compress {
			name = "compressed"
		}
		t.Run(name, func(t *testing.T) {
			b := fixture(t, compress)
			r, pkts := readAll(t, b, Limits{})
			st, sum := r.Stats(), r.Summary()
			if st.InFileOrder {
				t.Error("the fixture's events are out of time order in the file; Stats says they are not")
			}
			if compress && st.CompressedBuffers == 0 {
				t.Error("no compressed buffer read")
			}
			if st.Buffer0Extra == 0 {
				t.Error("buffer 0's record past SavedOffset not read")
			}
			if len(pkts) != 40 {
				t.Fatalf("%d packets, want 40", len(pkts))
			}
			for i, p := range pkts {
				want := fixtureStart.Add(time.Duration(i) * time.Millisecond)
				if !p.Time().Equal(want) || p.Data[len(p.Data)-1] != byte(i) && i != 33 {
					t.Fatalf("packet %d at %v (last byte %d), want %v and %d: not in time order", i, p.Time(), p.Data[len(p.Data)-1], want, i)
				}
			}
			d := pkts[33]
			if !d.Dropped || d.DropReason != 9 || d.DropLocation != 0xE0006001 || d.OriginalSize != 1400 || len(d.Data) != 50 || d.Component != 9 {
				t.Errorf("drop = %+v", d)
			}
			if got := r.DropReasonName(9); got != "VFP drop" {
				t.Errorf("reason 9 = %q", got)
			}
			if got := r.DropReasonName(77); got != "reason 77" {
				t.Errorf("reason 77 = %q", got)
			}
			if sum.PacketEvents != 40 || sum.Packets != 20 || sum.DropEvents != 1 || sum.DroppedPackets != 1 ||
				sum.DropsByReason[9] != 1 || sum.DropsByLoc[0xE0006001] != 1 || sum.DropsByComp[9] != 1 ||
				sum.ByComponent[7] != 20 || sum.ByComponent[9] != 20 || sum.OriginalBytes-sum.LoggedBytes != 1400-50 {
				t.Errorf("summary = %+v", sum)
			}
			if !sum.First.Equal(fixtureStart) || !sum.Last.Equal(fixtureStart.Add(39*time.Millisecond)) {
				t.Errorf("first %v last %v", sum.First, sum.Last)
			}
			c, ok := r.Component(9)
			if !ok || c.Name != "vmswitch.sys" || c.VSwitch != "cbr0" || c.Label() != "Container NIC 1a2b (vSwitch cbr0) [9]" {
				t.Errorf("component 9 = %+v (%q)", c, c.Label())
			}
			if h := r.Header(); h.Build != 20348 || h.Clock != ClockQPC || !h.StartTime.Equal(fixtureStart) {
				t.Errorf("header = %+v", h)
			}
			if n := r.Notes(); len(n) != 0 {
				t.Errorf("notes on a whole file: %q", n)
			}
		})
	}
}

func TestReorderWindowBounded(t *testing.T) {
	b := fixture(t, true)
	r, pkts := readAll(t, b, Limits{ReorderBytes: 1})
	if len(pkts) != 40 {
		t.Fatalf("%d packets", len(pkts))
	}
	if r.Stats().OutOfOrder == 0 {
		t.Fatal("a window of one buffer over buffers out of time order: no event counted out of order")
	}
	notes := strings.Join(r.Notes(), "\n")
	if !strings.Contains(notes, "out of time order") {
		t.Errorf("notes = %q", notes)
	}
}

func TestTruncatedFile(t *testing.T) {
	b := fixture(t, true)
	_, all := readAll(t, b, Limits{})
	// Cut inside every buffer after buffer 0, and inside headers.
	for cut := 1024 + 10; cut < len(b); cut += 97 {
		r, pkts := readAll(t, b[:cut], Limits{})
		if len(pkts) >= len(all) {
			t.Fatalf("cut at %d: %d packets of %d", cut, len(pkts), len(all))
		}
		notes := strings.Join(r.Notes(), "\n")
		if !r.Stopped() || !strings.Contains(notes, "cut short") || !strings.Contains(notes, "fixture.etl") {
			t.Fatalf("cut at %d: notes %q", cut, notes)
		}
	}
}

func TestDamagedBuffer(t *testing.T) {
	b := fixture(t, true)
	// Break the second buffer's compressed data: a match reaching back
	// before its start, right at the first flags.
	n := int(binary.LittleEndian.Uint32(b[1024:]))
	off := 1024 + n
	copy(b[off+bufferHeaderSize:], []byte{0, 0, 0, 0x80, 0xff, 0xff})
	r, pkts := readAll(t, b, Limits{})
	notes := strings.Join(r.Notes(), "\n")
	if !strings.Contains(notes, "damaged at buffer 2") || !strings.Contains(notes, "plain LZ77") {
		t.Fatalf("notes = %q", notes)
	}
	if len(pkts) == 0 || len(pkts) >= 40 {
		t.Fatalf("%d packets: want those of the first buffer only", len(pkts))
	}
}

func TestDamagedRecordSkipsItsBuffer(t *testing.T) {
	b := fixture(t, false)
	// The first record of the second data buffer gets a bad marker.
	n := int(binary.LittleEndian.Uint32(b[1024:]))
	b[1024+n+bufferHeaderSize+3] = 0x00
	r, pkts := readAll(t, b, Limits{})
	if r.Stats().BadRecords != 1 || len(pkts) == 0 || len(pkts) >= 40 {
		t.Fatalf("bad records %d, packets %d", r.Stats().BadRecords, len(pkts))
	}
	if !strings.Contains(strings.Join(r.Notes(), "\n"), "damaged record") {
		t.Errorf("notes = %q", r.Notes())
	}
}

func TestNotETL(t *testing.T) {
	for name, b := range map[string][]byte{
		"empty":  nil,
		"pcapng": append([]byte{0x0a, 0x0d, 0x0d, 0x0a}, make([]byte, 200)...),
		"text":   bytes.Repeat([]byte("hello "), 100),
	} {
		_, err := NewReader(bytes.NewReader(b), "x", Limits{})
		if err == nil || !strings.Contains(err.Error(), "ETL") {
			t.Errorf("%s: err = %v", name, err)
		}
		if IsETL(b) {
			t.Errorf("%s: IsETL", name)
		}
	}
	if !IsETL(fixture(t, false)) {
		t.Error("IsETL false on a fixture")
	}
}

func TestLimitsBoundABuffer(t *testing.T) {
	b := fixture(t, true)
	binary.LittleEndian.PutUint32(b[1024+4:], 1<<30) // SavedOffset: a gigabyte inflated
	r, pkts := readAll(t, b, Limits{})
	if len(pkts) != 0 && !r.Stopped() {
		t.Fatal("a buffer claiming 1 GiB read on")
	}
	if !strings.Contains(strings.Join(r.Notes(), " "), "not between") {
		t.Errorf("notes = %q", r.Notes())
	}
	if !errors.Is(&bufferError{kind: errDamaged}, errDamaged) {
		t.Error("bufferError does not unwrap")
	}
}

func FuzzReader(f *testing.F) {
	f.Add(fixture(f, true))
	f.Add(fixture(f, false))
	var ndis bytes.Buffer
	if w, err := etltest.NewWriter(&ndis, etltest.Options{Compress: true}); err == nil {
		w.NDISPacket(etltest.NDISPacket{LowerIfIndex: 3, Keyword: etltest.NDISPacketStart | etltest.NDISPacketEnd | etltest.NDISTruncated, Data: frame(60, 1)})
		w.NDISPacket(etltest.NDISPacket{LowerIfIndex: 3, Keyword: etltest.NDISPacketStart, Data: frame(60, 2)})
		w.Close()
		f.Add(ndis.Bytes())
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := NewReader(bytes.NewReader(b), "fuzz.etl", Limits{MaxBufferSize: 1 << 20, ReorderBytes: 4096})
		if err != nil {
			return
		}
		var n int64
		for {
			p, err := r.Next()
			if err != nil {
				break
			}
			n++
			if len(p.Data) > 0xFFFF {
				t.Fatalf("a %d-byte payload from a 16-bit length", len(p.Data))
			}
		}
		if s := r.Summary(); s.PacketEvents != n {
			t.Fatalf("summary counts %d events, Next gave %d", s.PacketEvents, n)
		}
		r.Notes()
		r.Components()
	})
}

// pktmon logs its rundown when it stops: a conversion scans for it first.
func TestScanFindsRundownAtTheEnd(t *testing.T) {
	var buf bytes.Buffer
	w, err := etltest.NewWriter(&buf, etltest.Options{Compress: true, BufferSize: 512})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		w.Packet(etltest.Packet{At: time.Duration(i) * time.Millisecond, GroupID: uint64(i + 1), Type: 1, Component: 9, Data: frame(60, byte(i)),
			Dropped: i == 3, DropReason: 5})
	}
	w.Component(etltest.Component{ID: 9, Type: 5, Name: "vmswitch.sys", Description: "Container NIC 77"})
	w.ValueMap("DropReason", map[uint32]string{5: "Media Disconnected"})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	scan, err := Scan(bytes.NewReader(b), "end.etl", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := scan.Component(9); !ok || c.Description != "Container NIC 77" || scan.DropReasonName(5) != "Media Disconnected" {
		t.Fatalf("scan: %+v %v %q", c, ok, scan.DropReasonName(5))
	}
	if p, err := scan.Next(); err != io.EOF {
		t.Fatalf("a scan passes packets on: %+v", p)
	}
	// A window of one buffer: the first packet is passed on before the
	// rundown is read, unless the scan's is used.
	plain, err := NewReader(bytes.NewReader(b), "end.etl", Limits{ReorderBytes: 1})
	if err != nil {
		t.Fatal(err)
	}
	if p, err := plain.Next(); err != nil {
		t.Fatal(err)
	} else if _, ok := plain.Component(p.Component); ok {
		t.Fatal("the fixture's rundown is read before its first packet: the test cannot tell a scan's use")
	}
	plain.Close()
	r, err := NewReader(bytes.NewReader(b), "end.etl", Limits{ReorderBytes: 1})
	if err != nil {
		t.Fatal(err)
	}
	r.UseRundown(scan)
	p, err := r.Next()
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := r.Component(p.Component); !ok || c.Description != "Container NIC 77" {
		t.Fatalf("first packet's component %+v", c)
	}
	for {
		if _, err := r.Next(); err != nil {
			break
		}
	}
	if s := r.Summary(); s.PacketEvents != 20 || s.DropsByReason[5] != 1 {
		t.Errorf("summary %+v", s)
	}
}
