package analyzers

import (
	"math/rand"
	"net/netip"
	"slices"
	"testing"

	"github.com/wincni/diag/snapshot"
)

// overlappingRoutes finds exactly the pairs a loop over every pair finds,
// on random route tables with nested, equal, disjoint, unmasked and
// invalid prefixes of both families.
func TestOverlappingRoutesMatchesPairwise(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	for round := range 300 {
		var rs []snapshot.RemoteSubnetRoute
		for range rng.Intn(40) {
			var p netip.Prefix
			switch rng.Intn(8) {
			case 0:
				// invalid: left zero
			case 1:
				a := netip.AddrFrom16([16]byte{0xfd, 0, byte(rng.Intn(3)), byte(rng.Intn(3)), 15: byte(rng.Intn(256))})
				p = netip.PrefixFrom(a, 32+rng.Intn(97))
			default:
				a := netip.AddrFrom4([4]byte{10, byte(rng.Intn(3)), byte(rng.Intn(4)), byte(rng.Intn(256))})
				p = netip.PrefixFrom(a, 8+rng.Intn(25)) // often unmasked
			}
			rs = append(rs, snapshot.RemoteSubnetRoute{DestinationPrefix: p})
		}
		want := map[int][]int{}
		for i, r := range rs {
			for j := i + 1; j < len(rs); j++ {
				if o := rs[j]; r.DestinationPrefix.IsValid() && o.DestinationPrefix.IsValid() && o.DestinationPrefix.Overlaps(r.DestinationPrefix) {
					want[i] = append(want[i], j)
				}
			}
		}
		got := overlappingRoutes(rs)
		for i := range rs {
			if !slices.Equal(got[i], want[i]) {
				t.Fatalf("round %d, route %d (%s): got %v, want %v", round, i, rs[i].DestinationPrefix, got[i], want[i])
			}
		}
	}
}
