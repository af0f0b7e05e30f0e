package analyzers

import (
	"net/netip"
	"sort"
)

// encapIndex answers "the first encap rule (in the port's order) whose
// address ranges cover a prefix" without trying every rule: a node of a
// 1,000-node cluster has about a thousand RemoteSubnetRoutes and as many
// encap rules per port, and the pairwise search took a second a round.
type encapIndex struct {
	ranges []indexedRange // by lo
	maxHi  []netip.Addr   // maxHi[k]: the highest hi of ranges[0..k]
}

type indexedRange struct {
	lo, hi netip.Addr
	rule   int
}

func newEncapIndex(rules []vfpEncap) encapIndex {
	var x encapIndex
	for i, r := range rules {
		for _, rg := range r.ranges {
			x.ranges = append(x.ranges, indexedRange{rg[0], rg[1], i})
		}
	}
	sort.Slice(x.ranges, func(i, j int) bool { return x.ranges[i].lo.Less(x.ranges[j].lo) })
	x.maxHi = make([]netip.Addr, len(x.ranges))
	for k, r := range x.ranges {
		x.maxHi[k] = r.hi
		if k > 0 && x.maxHi[k-1].Compare(r.hi) > 0 {
			x.maxHi[k] = x.maxHi[k-1]
		}
	}
	return x
}

// first is the index of the first rule covering p, or -1: the same rule
// vfpEncap.covers finds trying them in order.
func (x encapIndex) first(p netip.Prefix) int {
	lo, hi := p.Masked().Addr(), lastAddr(p.Masked())
	k := sort.Search(len(x.ranges), func(i int) bool { return x.ranges[i].lo.Compare(lo) > 0 }) - 1
	best := -1
	// Walk back over the ranges that start at or before p while one of
	// them can still reach past its end.
	for ; k >= 0 && x.maxHi[k].Compare(hi) >= 0; k-- {
		if r := x.ranges[k]; r.hi.Compare(hi) >= 0 && (best < 0 || r.rule < best) {
			best = r.rule
		}
	}
	return best
}
