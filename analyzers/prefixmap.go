package analyzers

import (
	"net/netip"
	"slices"
)

// prefixMap answers "which of these prefixes holds this address, and what
// is its value" with one map lookup per distinct prefix length, not a scan
// of every prefix: a node of a 1,000-node cluster has a thousand remote
// subnet routes and a quarter of a million load balancer backends. Of two
// prefixes alike the first added is kept.
type prefixMap struct {
	lengths []int // the distinct lengths of the prefixes, ascending
	m       map[netip.Prefix]netip.Addr
}

func (p *prefixMap) add(pr netip.Prefix, v netip.Addr) {
	if !pr.IsValid() {
		return
	}
	if p.m == nil {
		p.m = map[netip.Prefix]netip.Addr{}
	}
	pr = pr.Masked()
	if _, seen := p.m[pr]; seen {
		return
	}
	p.m[pr] = v
	if i, found := slices.BinarySearch(p.lengths, pr.Bits()); !found {
		p.lengths = slices.Insert(p.lengths, i, pr.Bits())
	}
}

// lookup finds the most specific prefix holding a.
func (p *prefixMap) lookup(a netip.Addr) (netip.Addr, bool) {
	for i := len(p.lengths) - 1; i >= 0; i-- {
		if v, ok := p.at(a, p.lengths[i]); ok {
			return v, true
		}
	}
	return netip.Addr{}, false
}

// at is the value of the prefix of length bits that holds a, if one was
// added (a.Prefix fails when bits exceeds a's family).
func (p *prefixMap) at(a netip.Addr, bits int) (netip.Addr, bool) {
	q, err := a.Prefix(bits)
	if err != nil {
		return netip.Addr{}, false
	}
	v, ok := p.m[q]
	return v, ok
}
