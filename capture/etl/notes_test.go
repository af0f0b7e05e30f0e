package etl

import (
	"bytes"
	"encoding/binary"
	"testing"
	"time"

	"github.com/wincni/diag/capture/etl/etltest"
)

// bufferStarts lists the file offsets of a file's buffers.
func bufferStarts(b []byte) []int {
	var out []int
	for off := 0; off+bufferHeaderSize <= len(b); {
		out = append(out, off)
		n := int(binary.LittleEndian.Uint32(b[off:]))
		if n < bufferHeaderSize {
			break
		}
		off += n
	}
	return out
}

// withBuffersWritten sets the logfile header's BuffersWritten (0x24 into
// the header record's payload) as the logger leaves it: the buffers of
// the file, buffer 0 included (demikernel's PktMon.etl: 3 of 3).
func withBuffersWritten(b []byte, n int) []byte {
	out := append([]byte(nil), b...)
	binary.LittleEndian.PutUint32(out[bufferHeaderSize+systemHeaderSize+0x24:], uint32(n))
	return out
}

// A file cut exactly between two buffers reads as a whole one unless the
// logfile header's count of buffers is held against the buffers read.
func TestNoteForFileCutBetweenBuffers(t *testing.T) {
	full := fixture(t, true)
	starts := bufferStarts(full)
	if len(starts) < 4 {
		t.Fatalf("the fixture has %d buffers, the test needs 4 or more", len(starts))
	}
	b := withBuffersWritten(full, len(starts))
	whole, _ := readAll(t, b, Limits{})
	if n := whole.Notes(); len(n) > 0 {
		t.Fatalf("the whole file has notes: %q", n)
	}
	for _, cut := range []int{starts[1], starts[len(starts)-1]} {
		r, _ := readAll(t, b[:cut], Limits{})
		if len(r.Notes()) == 0 {
			t.Errorf("a file cut at byte %d, between buffers (%d of the %d its header says were written), has no note", cut, r.Stats().Buffers, len(starts))
		}
	}
}

// An ETL file of other providers (an HNS or WPR trace handed over by
// mistake) holds events but no packet capture: that must be said, not
// reported as a capture of 0 packets.
func TestNoteForETLWithoutPacketEvents(t *testing.T) {
	var buf bytes.Buffer
	w, err := etltest.NewWriter(&buf, etltest.Options{Start: fixtureStart})
	if err != nil {
		t.Fatal(err)
	}
	w.Component(etltest.Component{ID: 7, Type: 2, Name: "netvsc.sys", Description: "Microsoft Hyper-V Network Adapter"})
	for i := 0; i < 10; i++ {
		w.Packet(etltest.Packet{At: time.Duration(i) * time.Millisecond, GroupID: uint64(i + 1), Type: 1, Component: 7, Data: frame(60, byte(i))})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	pkt := buf.Bytes()
	r, got := readAll(t, pkt, Limits{})
	if len(got) != 10 || len(r.Notes()) > 0 {
		t.Fatalf("the pktmon file: %d packets, notes %q", len(got), r.Notes())
	}
	// The same events under another provider's GUID.
	g := mustGUID("11111111-2222-3333-4444-555555555555")
	other := bytes.ReplaceAll(pkt, PktMonProvider[:], g[:])
	r, got = readAll(t, other, Limits{})
	if len(got) != 0 || r.Stats().Events == 0 {
		t.Fatalf("the other provider's file: %d packets, %d events", len(got), r.Stats().Events)
	}
	if len(r.Notes()) == 0 {
		t.Errorf("an ETL file of %d events, none of Microsoft-Windows-PktMon or NDIS-PacketCapture, has no note", r.Stats().Events)
	}
}

// Stats.OutOfOrder counts the packet events passed on after a later one:
// every such event, not only the first of a late buffer.
func TestOutOfOrderCountsEveryLateEvent(t *testing.T) {
	var buf bytes.Buffer
	w, err := etltest.NewWriter(&buf, etltest.Options{Start: fixtureStart, Compress: true, BufferSize: 512})
	if err != nil {
		t.Fatal(err)
	}
	// Processor 0 logs two packets, at 0 and 50 ms; its buffer is written
	// last, after processor 1's buffers of 1 to 99 ms.
	for i := 1; i < 100; i++ {
		w.Packet(etltest.Packet{At: time.Duration(i) * time.Millisecond, Processor: 1, GroupID: uint64(i + 10), Type: 1, Component: 7, Data: frame(60, byte(i))})
	}
	w.Packet(etltest.Packet{At: 0, Processor: 0, GroupID: 1, Type: 1, Component: 7, Data: frame(60, 1)})
	w.Packet(etltest.Packet{At: 50 * time.Millisecond, Processor: 0, GroupID: 2, Type: 1, Component: 7, Data: frame(60, 2)})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	// Move processor 0's buffer, which Close writes before processor 1's
	// last one, to the end of the file.
	var moved, proc0 []byte
	starts := append(bufferStarts(b), len(b))
	for i := 0; i+1 < len(starts); i++ {
		buf := b[starts[i]:starts[i+1]]
		if i > 0 && binary.LittleEndian.Uint16(buf[0x28:]) == 0 {
			proc0 = buf
			continue
		}
		moved = append(moved, buf...)
	}
	if proc0 == nil {
		t.Fatal("no buffer of processor 0")
	}
	moved = append(moved, proc0...)
	r, got := readAll(t, moved, Limits{ReorderBytes: 1})
	if len(got) != 101 {
		t.Fatalf("%d packets", len(got))
	}
	late := 0
	var latest int64
	for i, p := range got {
		if i > 0 && p.Timestamp < latest {
			late++
		}
		latest = max(latest, p.Timestamp)
	}
	if late != 2 {
		t.Fatalf("the fixture passes on %d events after a later one, not 2", late)
	}
	if s := r.Stats(); s.OutOfOrder != int64(late) {
		t.Errorf("Stats.OutOfOrder = %d, %d events were passed on after a later one", s.OutOfOrder, late)
	}
}

// mapBuffer is an uncompressed buffer of n EventMetadata type 33 records
// of the PktMon provider, each an EVENT_MAP_INFO of 4096 entries whose
// names all point at one string of 256 CJK characters: 33 KB in the file,
// 3 MB as Go strings.
func mapBuffer(n int) []byte {
	le := binary.LittleEndian
	meta := mustGUID("bbccf6c1-6cd1-48c4-80ff-839482e37671")
	var body []byte
	for i := 0; i < n; i++ {
		const entries = 4096
		fixed := 16 + 8*entries
		name := []byte{byte('A' + i), 0, 0, 0}
		long := make([]byte, 0, 514)
		for k := 0; k < 256; k++ {
			long = append(long, 0x00, 0x4e)
		}
		long = append(long, 0, 0)
		info := make([]byte, fixed)
		le.PutUint32(info[0:], uint32(fixed))
		le.PutUint32(info[4:], 1)
		le.PutUint32(info[8:], entries)
		for k := 0; k < entries; k++ {
			le.PutUint32(info[16+8*k:], uint32(fixed+len(name)))
			le.PutUint32(info[20+8*k:], uint32(k))
		}
		info = append(append(info, name...), long...)
		r := make([]byte, traceHeaderSize)
		r[2], r[3], r[4] = hdrFullHeader64, 0xC0, 33
		copy(r[0x18:], meta[:])
		r = append(append(r, PktMonProvider[:]...), info...)
		le.PutUint16(r[0:], uint16(len(r)))
		for len(r)%8 != 0 {
			r = append(r, 0)
		}
		body = append(body, r...)
	}
	h := make([]byte, bufferHeaderSize)
	size := uint32(bufferHeaderSize + len(body))
	le.PutUint32(h[0x00:], size)
	le.PutUint32(h[0x04:], size)
	le.PutUint32(h[0x30:], size)
	le.PutUint16(h[0x34:], 0x20)
	return append(h, body...)
}

// The embedded value maps are held for the whole reading: what they cost
// must be bounded whatever the file, not up to 256 maps × 4096 entries ×
// 256 characters (one 8.6 MB file of such maps took 1 GB).
func TestValueMapsBounded(t *testing.T) {
	plain := fixture(t, false)
	b := append(append(append([]byte(nil), plain[:1024]...), mapBuffer(8)...), plain[1024:]...)
	r, got := readAll(t, b, Limits{})
	if len(got) == 0 {
		t.Fatal("no packets read")
	}
	held := 0
	for name, m := range r.maps {
		held += len(name)
		for _, s := range m {
			held += len(s)
		}
	}
	if held > 8<<20 {
		t.Errorf("a %d-byte file holds %d MB of value map strings", len(b), held>>20)
	}
}
