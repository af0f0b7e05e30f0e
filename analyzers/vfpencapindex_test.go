package analyzers

import (
	"math/rand"
	"net/netip"
	"testing"
)

// The index finds the rule the plain search in order finds, for any mix of
// ranges (overlapping, nested, single addresses, IPv4 and IPv6).
func TestEncapIndexSameAsSearchInOrder(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	v4 := func() netip.Addr {
		return netip.AddrFrom4([4]byte{10, byte(rng.Intn(4)), byte(rng.Intn(256)), byte(rng.Intn(256))})
	}
	v6 := func() netip.Addr {
		var b [16]byte
		b[0], b[1], b[14], b[15] = 0xfd, 0, byte(rng.Intn(4)), byte(rng.Intn(256))
		return netip.AddrFrom16(b)
	}
	for round := 0; round < 300; round++ {
		var rules []vfpEncap
		for range rng.Intn(40) {
			var e vfpEncap
			for range 1 + rng.Intn(3) {
				addr := v4
				if rng.Intn(4) == 0 {
					addr = v6
				}
				a, b := addr(), addr()
				if b.Less(a) {
					a, b = b, a
				}
				e.ranges = append(e.ranges, [2]netip.Addr{a, b})
			}
			rules = append(rules, e)
		}
		x := newEncapIndex(rules)
		for range 50 {
			var p netip.Prefix
			if rng.Intn(4) == 0 {
				p = netip.PrefixFrom(v6(), 112+rng.Intn(17)).Masked()
			} else {
				p = netip.PrefixFrom(v4(), 16+rng.Intn(17)).Masked()
			}
			want := -1
			for j := range rules {
				if rules[j].covers(p) {
					want = j
					break
				}
			}
			if got := x.first(p); got != want {
				t.Fatalf("round %d, %s: index %d, search in order %d (rules %v)", round, p, got, want, rules)
			}
		}
	}
}
