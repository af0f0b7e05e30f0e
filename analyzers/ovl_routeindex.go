package analyzers

import (
	"net/netip"
	"slices"

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
	dest      map[netip.Prefix]struct{}
	lengths   []int // the distinct Bits of the destinations, ascending
	providers map[netip.Addr]struct{}
	mgmt      netip.Addr
}

func newRouteIndex(n *snapshot.Network) *routeIndex {
	x := &routeIndex{
		dest:      make(map[netip.Prefix]struct{}, len(n.RemoteSubnetRoutes)),
		providers: make(map[netip.Addr]struct{}, len(n.RemoteSubnetRoutes)),
		mgmt:      n.ManagementIP,
	}
	for _, r := range n.RemoteSubnetRoutes {
		x.providers[r.ProviderAddress] = struct{}{}
		d := r.DestinationPrefix
		if !d.IsValid() {
			continue
		}
		x.dest[d.Masked()] = struct{}{}
		if !slices.Contains(x.lengths, d.Bits()) {
			x.lengths = append(x.lengths, d.Bits())
		}
	}
	slices.Sort(x.lengths)
	return x
}

// covers: a route whose destination contains a (netip.Prefix.Contains: a
// zero or zoned address, or one of the other family, is in none).
func (x *routeIndex) covers(a netip.Addr) bool {
	if !a.IsValid() || a.Zone() != "" {
		return false
	}
	for _, bits := range x.lengths {
		if x.holds(a, bits) {
			return true
		}
	}
	return false
}

// coversPrefix: a route for exactly p, or one that contains it (a shorter
// destination holding p's address).
func (x *routeIndex) coversPrefix(p netip.Prefix) bool {
	if !p.IsValid() {
		return false
	}
	for _, bits := range x.lengths {
		if bits > p.Bits() {
			break
		}
		if x.holds(p.Addr(), bits) {
			return true
		}
	}
	return false
}

func (x *routeIndex) holds(a netip.Addr, bits int) bool {
	m, err := a.Prefix(bits) // fails when bits exceeds a's family
	if err != nil {
		return false
	}
	_, ok := x.dest[m]
	return ok
}

// isProviderAddress: the network's own ManagementIP or a peer's VTEP.
func (x *routeIndex) isProviderAddress(a netip.Addr) bool {
	if a == x.mgmt {
		return true
	}
	_, ok := x.providers[a]
	return ok
}
