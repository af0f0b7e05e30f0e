package snapshot

import (
	"hash/maphash"
	"slices"
	"sync"
	"unsafe"
)

// sharedUnknown are lists of the fields an input did not show whole (an
// object's Unknown), kept once by content: a pasted table hides the same
// fields of every row, 30,000 lists of eight in a 1,000-node cluster's
// Get-HnsEndpoint | Format-Table, which were half of that paste's model.
// They are never written; an endpoint detail holding one can be shared
// (SetDetail). Loads run side by side.
var sharedUnknown struct {
	sync.Mutex
	seed  maphash.Seed
	byKey map[uint64][]string
	lists map[*string]bool // the kept lists, by their first element
}

// maxSharedUnknown bounds the lists kept; past it each object keeps its
// own, as before.
const maxSharedUnknown = 256

// ShareUnknown is the kept list equal to fields, fields itself kept when
// none is: the callers hand over lists they never write again.
func ShareUnknown(fields []string) []string {
	if len(fields) == 0 {
		return fields
	}
	u := &sharedUnknown
	u.Lock()
	defer u.Unlock()
	if u.byKey == nil {
		u.seed = maphash.MakeSeed()
		u.byKey, u.lists = map[uint64][]string{}, map[*string]bool{}
	}
	var h maphash.Hash
	h.SetSeed(u.seed)
	for _, f := range fields {
		h.WriteString(f)
		h.WriteByte(0)
	}
	k := h.Sum64()
	if kept, ok := u.byKey[k]; ok {
		if slices.Equal(kept, fields) {
			return kept
		}
		return fields // two lists of one hash: the second is only not shared
	}
	if len(u.byKey) < maxSharedUnknown {
		u.byKey[k] = fields
		u.lists[unsafe.SliceData(fields)] = true
	}
	return fields
}

// sharedUnknownList says whether list is one ShareUnknown keeps.
func sharedUnknownList(list []string) bool {
	u := &sharedUnknown
	u.Lock()
	defer u.Unlock()
	return u.lists[unsafe.SliceData(list)]
}
