package snapshot

import (
	"bytes"
	"encoding/json"
	"hash/maphash"
	"iter"
	"slices"
	"strings"
	"unsafe"
)

// EndpointIDTable keeps each endpoint ID that load balancers list as a
// backend once: a node in a large cluster lists 127,000 backends of 20,000
// endpoints, and a load balancer holds a 4-byte position in the table for
// each (EndpointIDs) instead of a 16-byte string. Loaders fill it one list
// at a time; once loaded it is read-only.
type EndpointIDTable struct {
	ids   []string
	slots []int32 // position+1 in ids, 0 empty; nil until an Add needs it
	seed  maphash.Seed
	// text holds the IDs AddBytes copies, packed: the endpoints' own
	// strings replace them once loaded (ShareEndpointIDs).
	text *strings.Builder
	warm byte // what Warm loaded, kept so that its loads are made
}

// idTextBlock is the size of the blocks AddBytes packs IDs in.
const idTextBlock = 16 << 10

// Grow makes room for n IDs in all, so that the table is not grown up to
// them (each doubling copies what it holds): a loader sizes it from how
// many endpoints the backends can name.
func (t *EndpointIDTable) Grow(n int) {
	if n <= len(t.ids) {
		return
	}
	t.ids = slices.Grow(t.ids, n-len(t.ids))
	size := 64
	for size < 2*n {
		size *= 2
	}
	if size > len(t.slots) {
		t.rehash(size)
	}
}

// Add is the position of id, kept at the end when new.
func (t *EndpointIDTable) Add(id string) uint32 {
	j := t.slotOf(bytesOf(id))
	if p := t.slots[j]; p != 0 {
		return uint32(p - 1)
	}
	return t.insert(j, id)
}

// AddBytes is Add of the ID spelled by b, which the table copies only
// when new: a load balancer list's reader hands its backends' bytes.
func (t *EndpointIDTable) AddBytes(b []byte) uint32 {
	j := t.slotOf(b)
	if p := t.slots[j]; p != 0 {
		return uint32(p - 1)
	}
	if len(b) > idTextBlock/16 {
		return t.insert(j, string(b))
	}
	if t.text == nil || t.text.Cap()-t.text.Len() < len(b) {
		t.text = &strings.Builder{}
		t.text.Grow(idTextBlock)
	}
	n := t.text.Len()
	t.text.Write(b)
	return t.insert(j, t.text.String()[n:])
}

// slotOf is find of the ID spelled by b, the table made first if need be.
func (t *EndpointIDTable) slotOf(b []byte) uint64 {
	if t.slots == nil {
		t.rehash(max(64, 4*len(t.ids)))
	}
	return t.find(b)
}

// insert keeps id in the empty slot j (slotOf) and is its position.
func (t *EndpointIDTable) insert(j uint64, id string) uint32 {
	t.ids = append(t.ids, id)
	t.slots[j] = int32(len(t.ids))
	if 2*len(t.ids) > len(t.slots) { // at most half full: short probes
		t.rehash(2 * len(t.slots))
	}
	return uint32(len(t.ids) - 1)
}

// bytesOf is s's bytes, not copied: for lookups, which only read them.
func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// Warm loads what AddBytes reads for each of bs into the cache: the slot
// its hash falls in, the ID kept there and that ID's first byte. In the
// table of a 5,000-node cluster's node (100,000 IDs) each lookup misses
// the cache three times, one miss waiting for the other; loaded for all of
// a load balancer's backends first, the misses of different backends
// overlap.
func (t *EndpointIDTable) Warm(bs [][]byte) {
	if len(t.slots) == 0 {
		return
	}
	mask := uint64(len(t.slots) - 1)
	w := t.warm
	for _, b := range bs {
		if p := t.slots[maphash.Bytes(t.seed, b)&mask]; p != 0 {
			if id := t.ids[p-1]; id != "" {
				w ^= id[0]
			}
		}
	}
	t.warm = w
}

// find is the slot of the ID spelled by b, or the empty one where it
// goes.
func (t *EndpointIDTable) find(b []byte) uint64 {
	mask := uint64(len(t.slots) - 1)
	for j := maphash.Bytes(t.seed, b) & mask; ; j = (j + 1) & mask {
		if p := t.slots[j]; p == 0 || t.ids[p-1] == string(b) {
			return j
		}
	}
}

// rehash makes n slots (a power of two) for the IDs kept.
func (t *EndpointIDTable) rehash(n int) {
	if t.slots == nil {
		t.seed = maphash.MakeSeed()
	}
	t.slots = make([]int32, n)
	for i, id := range t.ids {
		t.slots[t.find(bytesOf(id))] = int32(i + 1)
	}
}

// Len is how many distinct IDs the table holds.
func (t *EndpointIDTable) Len() int { return len(t.ids) }

// At is the ID at position i.
func (t *EndpointIDTable) At(i int) string { return t.ids[i] }

// List is the backends at positions pos of the table, which it keeps (the
// caller gives them up).
func (t *EndpointIDTable) List(pos []uint32) EndpointIDs {
	return EndpointIDs{table: t, pos: pos}
}

// ShareEndpointIDs makes each ID an endpoint of x has that endpoint's own
// string, so that the backends keep no copy of their own, and lets go of
// the lookup slots: loading is done. The positions found stay with x, for
// the rules that resolve the backends next (EndpointIndex.Backends).
func (t *EndpointIDTable) ShareEndpointIDs(x *EndpointIndex) {
	for i, p := range x.resolve(t) {
		if p >= 0 {
			t.ids[i] = x.eps[p].ID
		}
	}
	t.slots, t.text = nil, nil
}

// EndpointIDs is a load balancer's backends, the IDs of their endpoints in
// the order it lists them: positions in a table of the snapshot's distinct
// backend IDs (EndpointIDTable). The zero value is an empty list. Read-only.
type EndpointIDs struct {
	table *EndpointIDTable
	pos   []uint32
}

// NewEndpointIDs is a list of the given IDs in a table of its own.
func NewEndpointIDs(ids ...string) EndpointIDs {
	if len(ids) == 0 {
		return EndpointIDs{}
	}
	t := &EndpointIDTable{}
	pos := make([]uint32, len(ids))
	for i, id := range ids {
		pos[i] = t.Add(id)
	}
	*t = EndpointIDTable{ids: t.ids} // made whole: no slots to keep
	return t.List(pos)
}

// Len is the number of backends.
func (b EndpointIDs) Len() int { return len(b.pos) }

// At is the ID of the i-th backend.
func (b EndpointIDs) At(i int) string { return b.table.ids[b.pos[i]] }

// All yields each backend's position in the list and ID, in order.
func (b EndpointIDs) All() iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		for i, p := range b.pos {
			if !yield(i, b.table.ids[p]) {
				return
			}
		}
	}
}

// Table is the table the IDs are positions in; nil for an empty list.
func (b EndpointIDs) Table() *EndpointIDTable { return b.table }

// IsZero: no backends (omitted from JSON, as an empty list was).
func (b EndpointIDs) IsZero() bool { return len(b.pos) == 0 }

// MarshalJSON writes the IDs as a list of strings, escaped as a []string
// is: HTML characters are left to the encoder that writes the snapshot.
func (b EndpointIDs) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('[')
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for i, id := range b.All() {
		if i > 0 {
			buf.WriteByte(',')
		}
		if err := enc.Encode(id); err != nil {
			return nil, err
		}
		buf.Truncate(buf.Len() - 1) // Encode's newline
	}
	buf.WriteByte(']')
	return buf.Bytes(), nil
}
