package formats

import (
	"strings"
	"unsafe"
)

// stringSet keeps one copy of each string it is given: many objects of a
// list name the same few (the network of each endpoint of a paste).
type stringSet map[string]string

// get is the copy of s kept, s itself the first time.
func (m *stringSet) get(s string) string {
	if s == "" {
		return s
	}
	if c, ok := (*m)[s]; ok {
		return c
	}
	if *m == nil {
		*m = map[string]string{}
	}
	(*m)[s] = s
	return s
}

// slabBlockBytes is the size of a block of list elements (nextIn): one of
// the allocator's size classes, so that a block fills the slot it gets
// whatever its element's size. Blocks of 64 load balancers of 176 bytes
// took 12,288-byte slots for 11,264 bytes.
const slabBlockBytes = 16 << 10

// nextIn is the next zero element of a block, a new block begun when the
// last is full: the elements of a list (endpoints, load balancers,
// Services) live many to an allocation instead of one each, and a block is
// never grown, so the pointers handed out stay valid.
func nextIn[T any](block *[]T) *T {
	if len(*block) == cap(*block) {
		*block = make([]T, 0, max(1, slabBlockBytes/int(unsafe.Sizeof(*new(T)))))
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
	a.room(len(s))
	n := a.b.Len()
	a.b.WriteString(s)
	return a.b.String()[n:]
}

// keepBytes is keep of the string b spells, with no string made first.
func (a *strArena) keepBytes(b []byte) string {
	if len(b) == 0 || len(b) > strArenaBlock/16 {
		return string(b)
	}
	a.room(len(b))
	n := a.b.Len()
	a.b.Write(b)
	return a.b.String()[n:]
}

// room starts a new block when the current one has less than n bytes left.
func (a *strArena) room(n int) {
	if a.b.Cap()-a.b.Len() < n {
		a.b = strings.Builder{}
		a.b.Grow(strArenaBlock)
	}
}
