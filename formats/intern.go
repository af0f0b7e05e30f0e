package formats

import (
	"hash/maphash"
	"strings"
)

// guids keeps one copy of each GUID a list names many times: a load
// balancer names its backends by their endpoints' IDs (127,000 references
// to 20,000 endpoints in a 1,000-node cluster's bundle). It lives for one
// load and one list (no lock: the endpoints, read side by side, keep their
// own IDs). The streaming reader of that list keeps its GUIDs here as it
// reads them (valueReader.ids), boxed as its tree holds them, so that an
// ID read again is neither allocated nor boxed again; the table of the
// backends (snapshot.EndpointIDTable) then keeps the first of each.
//
// It is an open-addressed table of positions in a list of the boxed IDs,
// their text in an arena: all of it is let go once the backends share the
// endpoints' IDs (shareEndpointIDs), and while the lists are read it is
// half what a map of 25,000 boxed strings takes.
type guids struct {
	vals  []any   // the boxed strings, in the order first kept
	slots []int32 // position+1 in vals; 0 is empty
	seed  maphash.Seed
	text  strArena
}

// guidLen is the length of a GUID without braces.
const guidLen = 36

func (g *guids) get(s string) string {
	if s == "" {
		return s
	}
	return g.keepString(s).(string)
}

// start makes the table on first use.
func (g *guids) start() {
	if g.slots == nil {
		g.seed = maphash.MakeSeed()
		g.slots = make([]int32, 64)
	}
}

// keep is get of the string b spells, boxed.
func (g *guids) keep(b []byte) any {
	g.start()
	j, found := g.find(maphash.Bytes(g.seed, b), func(v string) bool { return v == string(b) })
	if found {
		return g.vals[g.slots[j]-1]
	}
	return g.add(j, g.text.keepBytes(b))
}

// keepString is keep of a string already made.
func (g *guids) keepString(s string) any {
	g.start()
	j, found := g.find(maphash.String(g.seed, s), func(v string) bool { return v == s })
	if found {
		return g.vals[g.slots[j]-1]
	}
	return g.add(j, s)
}

// find is the slot of the string with hash h that same says is it, or the
// empty slot where it goes.
func (g *guids) find(h uint64, same func(string) bool) (uint64, bool) {
	mask := uint64(len(g.slots) - 1)
	for j := h & mask; ; j = (j + 1) & mask {
		p := g.slots[j]
		if p == 0 {
			return j, false
		}
		if same(g.vals[p-1].(string)) {
			return j, true
		}
	}
}

// add keeps s in the empty slot j (find), growing the table to stay at
// most half full.
func (g *guids) add(j uint64, s string) any {
	v := any(s)
	g.vals = append(g.vals, v)
	g.slots[j] = int32(len(g.vals))
	if 2*len(g.vals) > len(g.slots) {
		g.slots = make([]int32, 2*len(g.slots))
		mask := uint64(len(g.slots) - 1)
		for i, kept := range g.vals {
			k := maphash.String(g.seed, kept.(string)) & mask
			for g.slots[k] != 0 {
				k = (k + 1) & mask
			}
			g.slots[k] = int32(i + 1)
		}
	}
	return v
}

// nextIn is the next zero element of a block of n, a new block begun when
// the last is full: the elements of a list (endpoints, load balancers,
// Services) live n to an allocation instead of one each, and a block is
// never grown, so the pointers handed out stay valid.
func nextIn[T any](block *[]T, n int) *T {
	if len(*block) == cap(*block) {
		*block = make([]T, 0, n)
	}
	*block = (*block)[:len(*block)+1]
	return &(*block)[len(*block)-1]
}

// strArena packs strings that live as long as the model into shared
// blocks: one allocation of a string's own size class each would leave
// them scattered among the decoding's short-lived values, and the heap's
// spans part empty once those are collected. A string made here keeps its
// whole block alive: only what the model keeps goes in. One builder uses
// it (no lock).
type strArena struct {
	b strings.Builder
}

const strArenaBlock = 16 << 10

// keep is a copy of s in the arena (s itself when empty or long).
func (a *strArena) keep(s string) string {
	if s == "" || len(s) > strArenaBlock/16 {
		return s
	}
	if a.b.Cap()-a.b.Len() < len(s) {
		a.b = strings.Builder{}
		a.b.Grow(strArenaBlock)
	}
	n := a.b.Len()
	a.b.WriteString(s)
	return a.b.String()[n:]
}

// keepBytes is keep of the string b spells.
func (a *strArena) keepBytes(b []byte) string {
	if len(b) == 0 || len(b) > strArenaBlock/16 {
		return string(b)
	}
	if a.b.Cap()-a.b.Len() < len(b) {
		a.b = strings.Builder{}
		a.b.Grow(strArenaBlock)
	}
	n := a.b.Len()
	a.b.Write(b)
	return a.b.String()[n:]
}
