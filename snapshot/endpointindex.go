package snapshot

import (
	"hash/maphash"
	"iter"
)

// EndpointIndex finds endpoints by ID as a map filled in their order would
// (the last of a duplicated ID wins), in an open-addressed table of their
// positions: a large cluster's node has tens of thousands of endpoints,
// and a map of them costs several times the table's 4 bytes a slot, in a
// heap that holds the model beside it. Its lists do not change once made;
// Backends keeps what it resolved (not for concurrent use, like the
// snapshot's other indexes).
type EndpointIndex struct {
	eps   []*Endpoint
	slots []int32 // position+1 in eps; 0 is empty
	seed  maphash.Seed
	// resolved is the Pos of each ID of the table resolvedFor, the one
	// Backends was last asked about.
	resolvedFor *EndpointIDTable
	resolved    []int32
}

// NewEndpointIndex indexes eps, which must not change while it is used.
func NewEndpointIndex(eps []*Endpoint) *EndpointIndex {
	x := &EndpointIndex{eps: eps, seed: maphash.MakeSeed()}
	n := 8
	for n < 2*len(eps) { // at most half full: short probes
		n *= 2
	}
	x.slots = make([]int32, n)
	for i, e := range eps {
		x.slots[x.find(e.ID)] = int32(i + 1)
	}
	return x
}

// find is the slot of id, or the empty one where it would go.
func (x *EndpointIndex) find(id string) uint64 {
	return x.findFrom(maphash.String(x.seed, id)&uint64(len(x.slots)-1), id)
}

// findFrom is find from slot j on: id's hashed slot, or one past it.
func (x *EndpointIndex) findFrom(j uint64, id string) uint64 {
	mask := uint64(len(x.slots) - 1)
	for {
		p := x.slots[j]
		if p == 0 || x.eps[p-1].ID == id {
			return j
		}
		j = (j + 1) & mask
	}
}

// Pos is the position in the indexed list of the endpoint with that ID, the
// last one when several have it; -1 when none has.
func (x *EndpointIndex) Pos(id string) int {
	return int(x.slots[x.find(id)]) - 1
}

// Get is the endpoint with that ID (the last one), nil when none has it.
func (x *EndpointIndex) Get(id string) *Endpoint {
	if i := x.Pos(id); i >= 0 {
		return x.eps[i]
	}
	return nil
}

// At is the endpoint at position i of the indexed list (Pos, Backends).
func (x *EndpointIndex) At(i int) *Endpoint { return x.eps[i] }

// Backends yields each backend b lists, in order, with the position in the
// indexed list of its endpoint as Pos finds it (-1 for none). Each ID of
// b's table is looked up once for all the lists that share it (the load
// balancers of a snapshot: 127,000 backends of 20,000 endpoints in a
// large cluster's node), and the positions are kept for the next list.
func (x *EndpointIndex) Backends(b EndpointIDs) iter.Seq2[string, int] {
	return func(yield func(string, int) bool) {
		if len(b.pos) == 0 {
			return
		}
		at := x.resolve(b.table)
		for _, p := range b.pos {
			if !yield(b.table.ids[p], int(at[p])) {
				return
			}
		}
	}
}

// resolve is the Pos of each ID of t, kept until another table is asked
// about or t grows.
func (x *EndpointIndex) resolve(t *EndpointIDTable) []int32 {
	if x.resolvedFor != t || len(x.resolved) != len(t.ids) {
		x.resolved = x.posAll(t.ids, make([]int32, 0, len(t.ids)))
		x.resolvedFor = t
	}
	return x.resolved
}

// getBatch is how many lookups posAll has on their way from memory at once.
const getBatch = 16

// GetAll appends to out the endpoint of each ID in ids, as Get finds it
// (nil for none).
func (x *EndpointIndex) GetAll(ids []string, out []*Endpoint) []*Endpoint {
	var at [getBatch]int32
	for len(ids) > 0 {
		b := ids[:min(len(ids), getBatch)]
		ids = ids[len(b):]
		for _, p := range x.posAll(b, at[:0]) {
			if p >= 0 {
				out = append(out, x.eps[p])
			} else {
				out = append(out, nil)
			}
		}
	}
	return out
}

// posAll appends to out the Pos of each ID in ids. A lookup in a large
// node's model waits on memory three times, for the slot, the endpoint
// and its ID; posAll asks for the slots of a batch of IDs, then their
// endpoints, then compares, so that the waits of a batch overlap instead
// of adding up.
func (x *EndpointIndex) posAll(ids []string, out []int32) []int32 {
	mask := uint64(len(x.slots) - 1)
	var at [getBatch]uint64
	var first [getBatch]*Endpoint
	for len(ids) > 0 {
		b := ids[:min(len(ids), getBatch)]
		ids = ids[len(b):]
		for i, id := range b { // the slots, loaded side by side
			j := maphash.String(x.seed, id) & mask
			at[i] = j
			if p := x.slots[j]; p != 0 {
				first[i] = x.eps[p-1]
			} else {
				first[i] = nil
			}
		}
		for i, id := range b {
			p := x.slots[at[i]] - 1
			if e := first[i]; e != nil && e.ID != id {
				p = x.slots[x.findFrom(at[i], id)] - 1
			}
			out = append(out, p)
		}
	}
	return out
}
