package capture

// flowTable holds the IPv4 flows by their fastKey, in open addressing
// with linear probing. Every packet looks its flow up; a Go map behind a
// direct-mapped cache of 16,384 slots went to the map for one packet in
// seven on a capture of 6,000 flows (two busy flows in one slot evict each
// other), with a cache miss or two there. Here a lookup reads the slots
// from the key's on (a table at most three quarters full: 192 KB for those
// 6,000 flows) and never falls back to anything.
type flowTable struct {
	slots []flowSlot // a power of two long; an empty slot has no flow
	shift uint       // 64 - log2(len(slots)): the hash's top bits index
	n     int
}

type flowSlot struct {
	k  fastKey
	fl *Flow
}

const flowTableMin = 1024

// get returns the flow of k, or nil.
func (t *flowTable) get(k fastKey) *Flow {
	if t.slots == nil {
		return nil
	}
	mask := len(t.slots) - 1
	for i := int(mix(k) >> t.shift); ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.fl == nil || s.k == k {
			return s.fl
		}
	}
}

// put adds the flow of k, which the table does not hold.
func (t *flowTable) put(k fastKey, fl *Flow) {
	if (t.n+1)*4 > len(t.slots)*3 {
		t.grow()
	}
	t.insert(k, fl)
	t.n++
}

func (t *flowTable) insert(k fastKey, fl *Flow) {
	mask := len(t.slots) - 1
	i := int(mix(k) >> t.shift)
	for t.slots[i].fl != nil {
		i = (i + 1) & mask
	}
	t.slots[i] = flowSlot{k, fl}
}

func (t *flowTable) grow() {
	old := t.slots
	n := max(flowTableMin, 2*len(old))
	t.slots = make([]flowSlot, n)
	t.shift = 64
	for ; n > 1; n >>= 1 {
		t.shift--
	}
	for _, s := range old {
		if s.fl != nil {
			t.insert(s.k, s.fl)
		}
	}
}
