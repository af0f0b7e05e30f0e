package capture

import (
	"math/rand/v2"
	"testing"
	"unsafe"
)

// The flow table finds every flow it holds and no other, across its
// growth, with keys that share their hash's top bits or differ in one bit.
func TestFlowTable(t *testing.T) {
	var ft flowTable
	if ft.get(fastKey{1, 2}) != nil {
		t.Fatal("an empty table holds a flow")
	}
	r := rand.New(rand.NewPCG(1, 2))
	want := map[fastKey]*Flow{}
	keys := []fastKey{{0, 0}, {0, 1}, {1, 0}, {^uint64(0), ^uint64(0)}}
	for len(keys) < 50000 {
		k := fastKey{r.Uint64(), r.Uint64()}
		keys = append(keys, k, fastKey{k[0] ^ 1, k[1]}, fastKey{k[0], k[1] ^ 1<<63})
	}
	for i, k := range keys {
		if _, dup := want[k]; dup {
			continue
		}
		if ft.get(k) != nil {
			t.Fatalf("key %d %x found before it was added", i, k)
		}
		fl := &Flow{Packets: int64(i)}
		ft.put(k, fl)
		want[k] = fl
		if i%997 == 0 { // every flow so far, at every size
			for k, fl := range want {
				if got := ft.get(k); got != fl {
					t.Fatalf("after %d flows, key %x: got %p, want %p", len(want), k, got, fl)
				}
			}
		}
	}
	if ft.n != len(want) || ft.n*4 > len(ft.slots)*3 {
		t.Errorf("%d flows in %d slots, want %d at most three quarters full", ft.n, len(ft.slots), len(want))
	}
	for range 10000 {
		k := fastKey{r.Uint64(), r.Uint64()}
		if got := ft.get(k); got != want[k] {
			t.Fatalf("absent key %x: got %p", k, got)
		}
	}
}

// A flow's per-packet state is in its first 64-byte line, and the object
// takes whole lines (its size class keeps it on a line's start).
func TestFlowLayout(t *testing.T) {
	var fl Flow
	if end := unsafe.Offsetof(fl.encapsulated) + 1; end > 64 {
		t.Errorf("the per-packet state ends at byte %d, past the first line", end)
	}
	if n := unsafe.Sizeof(fl); n%64 != 0 {
		t.Errorf("a flow is %d bytes, not a multiple of 64", n)
	}
}
