package analyzers

import (
	"math/rand/v2"
	"net/netip"
	"testing"

	"github.com/wincni/diag/snapshot"
)

// The pairwise searches the index replaces, kept as its oracle.
func scanCovers(n *snapshot.Network, a netip.Addr) bool {
	for _, r := range n.RemoteSubnetRoutes {
		if r.DestinationPrefix.IsValid() && r.DestinationPrefix.Contains(a) {
			return true
		}
	}
	return false
}

func scanCoversPrefix(n *snapshot.Network, p netip.Prefix) bool {
	for _, r := range n.RemoteSubnetRoutes {
		d := r.DestinationPrefix
		if d.IsValid() && d.Bits() <= p.Bits() && d.Contains(p.Addr()) {
			return true
		}
	}
	return false
}

func scanIsProviderAddress(n *snapshot.Network, a netip.Addr) bool {
	if a == n.ManagementIP {
		return true
	}
	for _, r := range n.RemoteSubnetRoutes {
		if r.ProviderAddress == a {
			return true
		}
	}
	return false
}

func checkRouteIndex(t *testing.T, n *snapshot.Network, addrs []netip.Addr, prefixes []netip.Prefix) {
	t.Helper()
	x := newRouteIndex(n)
	for _, a := range addrs {
		if got, want := x.covers(a), scanCovers(n, a); got != want {
			t.Errorf("covers(%v) = %v, the scan says %v", a, got, want)
		}
		if got, want := x.isProviderAddress(a), scanIsProviderAddress(n, a); got != want {
			t.Errorf("isProviderAddress(%v) = %v, the scan says %v", a, got, want)
		}
	}
	for _, p := range prefixes {
		if got, want := x.coversPrefix(p), scanCoversPrefix(n, p); got != want {
			t.Errorf("coversPrefix(%v) = %v, the scan says %v", p, got, want)
		}
	}
}

func TestRouteIndexEdges(t *testing.T) {
	n := &snapshot.Network{
		ManagementIP: netip.MustParseAddr("10.20.30.11"),
		RemoteSubnetRoutes: []snapshot.RemoteSubnetRoute{
			{DestinationPrefix: netip.MustParsePrefix("10.244.2.0/24"), ProviderAddress: netip.MustParseAddr("10.20.30.12")},
			{DestinationPrefix: netip.MustParsePrefix("10.244.3.7/24"), ProviderAddress: netip.MustParseAddr("10.20.30.13")}, // host bits set
			{DestinationPrefix: netip.MustParsePrefix("100.64.0.0/16")},                                                      // a wide route, no PA
			{DestinationPrefix: netip.MustParsePrefix("192.168.1.64/26"), ProviderAddress: netip.MustParseAddr("10.20.30.14")},
			{DestinationPrefix: netip.MustParsePrefix("fd00:244:5::/64"), ProviderAddress: netip.MustParseAddr("fd00::15")},
			{DestinationPrefix: netip.MustParsePrefix("::ffff:10.99.0.0/120")}, // an IPv4-mapped destination
			{ProviderAddress: netip.MustParseAddr("10.20.30.16")},              // no destination
		},
	}
	addrs := []netip.Addr{
		{}, netip.MustParseAddr("10.244.2.9"), netip.MustParseAddr("10.244.3.200"), netip.MustParseAddr("10.244.4.1"),
		netip.MustParseAddr("100.64.200.3"), netip.MustParseAddr("100.65.0.1"), netip.MustParseAddr("192.168.1.100"),
		netip.MustParseAddr("192.168.1.63"), netip.MustParseAddr("fd00:244:5::9"), netip.MustParseAddr("fd00:244:5::9%eth0"),
		netip.MustParseAddr("::ffff:10.244.2.9"), netip.MustParseAddr("::ffff:10.99.0.4"), netip.MustParseAddr("10.99.0.4"),
		netip.MustParseAddr("10.20.30.11"), netip.MustParseAddr("10.20.30.12"), netip.MustParseAddr("10.20.30.16"),
		netip.MustParseAddr("fd00::15"), netip.MustParseAddr("10.20.30.99"),
	}
	prefixes := []netip.Prefix{
		{}, netip.MustParsePrefix("10.244.2.0/24"), netip.MustParsePrefix("10.244.2.128/25"), netip.MustParsePrefix("10.244.2.0/23"),
		netip.MustParsePrefix("10.244.3.0/24"), netip.MustParsePrefix("10.244.3.9/32"), netip.MustParsePrefix("100.64.7.0/24"),
		netip.MustParsePrefix("100.64.0.0/15"), netip.MustParsePrefix("192.168.1.64/26"), netip.MustParsePrefix("192.168.1.0/24"),
		netip.MustParsePrefix("fd00:244:5::/64"), netip.MustParsePrefix("fd00:244:5::/48"), netip.MustParsePrefix("::ffff:10.99.0.0/124"),
		netip.MustParsePrefix("10.99.0.0/28"), netip.MustParsePrefix("0.0.0.0/0"),
	}
	checkRouteIndex(t, n, addrs, prefixes)
	// Spot the verdicts, so the oracle itself is pinned.
	x := newRouteIndex(n)
	for _, c := range []struct {
		a    string
		want bool
	}{{"10.244.3.200", true}, {"10.244.4.1", false}, {"fd00:244:5::9%eth0", false}, {"::ffff:10.244.2.9", false}} {
		if got := x.covers(netip.MustParseAddr(c.a)); got != c.want {
			t.Errorf("covers(%s) = %v, want %v", c.a, got, c.want)
		}
	}
	if x.coversPrefix(netip.MustParsePrefix("10.244.2.0/23")) || !x.coversPrefix(netip.MustParsePrefix("10.244.2.128/25")) {
		t.Error("a route covers its own and narrower prefixes only")
	}
	checkRouteIndex(t, &snapshot.Network{}, addrs, prefixes) // no routes at all
}

// Random routes and lookups, dense in a small space so that hits and misses
// both occur at every prefix length.
func TestRouteIndexMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	addr := func() netip.Addr {
		if rng.IntN(8) == 0 {
			var b [16]byte
			b[0], b[1], b[15] = 0xfd, byte(rng.IntN(2)), byte(rng.IntN(256))
			return netip.AddrFrom16(b)
		}
		return netip.AddrFrom4([4]byte{10, byte(rng.IntN(2)), byte(rng.IntN(4)), byte(rng.IntN(256))})
	}
	prefix := func() netip.Prefix {
		a := addr()
		lo := 14
		if a.Is6() {
			lo = 100
		}
		return netip.PrefixFrom(a, lo+rng.IntN(a.BitLen()-lo+1))
	}
	for round := range 50 {
		n := &snapshot.Network{ManagementIP: addr()}
		for range rng.IntN(40) {
			n.RemoteSubnetRoutes = append(n.RemoteSubnetRoutes, snapshot.RemoteSubnetRoute{DestinationPrefix: prefix(), ProviderAddress: addr()})
		}
		var addrs []netip.Addr
		var prefixes []netip.Prefix
		for range 200 {
			addrs = append(addrs, addr())
			prefixes = append(prefixes, prefix())
		}
		checkRouteIndex(t, n, addrs, prefixes)
		if t.Failed() {
			t.Fatalf("round %d: routes %v", round, n.RemoteSubnetRoutes)
		}
	}
}
