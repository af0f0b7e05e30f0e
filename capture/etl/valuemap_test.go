package etl

import (
	"strings"
	"testing"
	"unsafe"
)

// Value maps past the limits are left out whole and said in a note; the
// maps before them and the packets are kept.
func TestValueMapsLeftOutNoted(t *testing.T) {
	plain := fixture(t, false)
	b := append(append(append([]byte(nil), plain[:1024]...), mapBuffer(3)...), plain[1024:]...)
	r, got := readAll(t, b, Limits{})
	r0, want := readAll(t, plain, Limits{})
	if len(r0.Notes()) > 0 {
		t.Fatalf("the file without them has notes: %q", r0.Notes())
	}
	if len(got) != len(want) {
		t.Fatalf("%d packets, %d without the maps", len(got), len(want))
	}
	if r.DropReasonName(9) != "VFP drop" {
		t.Errorf("DropReason 9 = %q, the map before the large ones is lost", r.DropReasonName(9))
	}
	if r.ValueMap("A") != nil {
		t.Errorf("map A of 4096 entries of 768 bytes is held")
	}
	notes := strings.Join(r.Notes(), "\n")
	if !strings.Contains(notes, "3 embedded value maps (A, B, C) are left out") {
		t.Errorf("notes %q do not say the 3 maps left out", notes)
	}
}

// Maps within the limits are all held, their names shared.
func TestValueMapsInterned(t *testing.T) {
	st := map[string]string{}
	b := mapBuffer(1)
	rec := b[bufferHeaderSize+traceHeaderSize+16:]
	name, n, ok := mapInfoHead(rec)
	if !ok || name != "A" || n != 4096 {
		t.Fatalf("head: %q %d %v", name, n, ok)
	}
	m, size, ok := parseMapEntries(rec, n, 4<<20, st)
	if !ok || len(m) != 4096 || size != 4096*768 {
		t.Fatalf("entries: %d, %d bytes, %v", len(m), size, ok)
	}
	if unsafe.StringData(m[0]) != unsafe.StringData(m[4095]) {
		t.Errorf("entries 0 and 4095 name one string with two copies")
	}
	if _, _, ok := parseMapEntries(rec, n, size-1, st); ok {
		t.Errorf("a map of %d bytes of names is held within %d", size, size-1)
	}
}

// FuzzValueMap holds the map parser to its bounds on any bytes.
func FuzzValueMap(f *testing.F) {
	f.Add(mapBuffer(1)[bufferHeaderSize+traceHeaderSize+16:], 1<<20)
	f.Add([]byte{16, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 24, 0, 0, 0, 7, 0, 0, 0, 'X', 0, 0, 0, 'y', 0, ' ', 0, 0, 0}, 64)
	f.Fuzz(func(t *testing.T, b []byte, budget int) {
		name, n, ok := mapInfoHead(b)
		if !ok {
			return
		}
		if name == "" || len(name) > 3*maxMapNameUnits || 16+8*n > len(b) {
			t.Fatalf("head %q %d of a %d-byte structure", name, n, len(b))
		}
		m, size, ok := parseMapEntries(b, n, budget, map[string]string{})
		if ok && (len(m) > n || size > budget) {
			t.Fatalf("%d entries of %d, %d bytes within %d", len(m), n, size, budget)
		}
	})
}
