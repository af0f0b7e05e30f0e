package analyzers

import (
	"net/netip"
	"strings"
	"testing"
)

// An addrSample names a list as firstN names the same addresses as text:
// the first five, then how many more.
func TestAddrSampleNamesLikeFirstN(t *testing.T) {
	for _, n := range []int{0, 1, 5, 6, 127} {
		var s addrSample
		var all []string
		a := netip.MustParseAddr("10.244.0.1")
		for i := 0; i < n; i++ {
			s.add(a)
			all = append(all, a.String())
			a = a.Next()
		}
		if got, want := s.String(), strings.Join(firstN(all, sampleAddrs), ", "); got != want {
			t.Errorf("%d addresses: %q, want %q", n, got, want)
		}
	}
}
