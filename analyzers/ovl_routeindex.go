package analyzers

import (
	"net/netip"

	"github.com/wincni/diag/snapshot"
)

// routeIndex answers "does a RemoteSubnetRoute of the network cover this
// address / this prefix" and "is this a peer's ProviderAddress" without
// trying every route: a node of an N-node overlay has about N routes and
// as many peers (or remote pod endpoints) to check, so the pairwise search
// grew with N². Routes are kept by their masked destination prefix; a
// lookup masks the address to each prefix length the routes use (a
// handful: usually one).
type routeIndex struct {
	dest      prefixMap // destinations to ProviderAddresses
	providers map[netip.Addr]struct{}
	mgmt      netip.Addr
}

func newRouteIndex(n *snapshot.Network) *routeIndex {
	x := &routeIndex{
		providers: make(map[netip.Addr]struct{}, len(n.RemoteSubnetRoutes)),
		mgmt:      n.ManagementIP,
	}
	for _, r := range n.RemoteSubnetRoutes {
		x.providers[r.ProviderAddress] = struct{}{}
		x.dest.add(r.DestinationPrefix, r.ProviderAddress)
	}
	return x
}

// covers: a route whose destination contains a (netip.Prefix.Contains: a
// zero or zoned address, or one of the other family, is in none).
func (x *routeIndex) covers(a netip.Addr) bool {
	if !a.IsValid() || a.Zone() != "" {
		return false
	}
	_, ok := x.dest.lookup(a)
	return ok
}

// coversPrefix: a route for exactly p, or one that contains it (a shorter
// destination holding p's address).
func (x *routeIndex) coversPrefix(p netip.Prefix) bool {
	if !p.IsValid() {
		return false
	}
	for _, bits := range x.dest.lengths {
		if bits > p.Bits() {
			break
		}
		if _, ok := x.dest.at(p.Addr(), bits); ok {
			return true
		}
	}
	return false
}

// isProviderAddress: the network's own ManagementIP or a peer's VTEP.
func (x *routeIndex) isProviderAddress(a netip.Addr) bool {
	if a == x.mgmt {
		return true
	}
	_, ok := x.providers[a]
	return ok
}
