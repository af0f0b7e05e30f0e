package diff

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/wincni/diag/snapshot"
)

// adapters compares host adapters by name: addresses, MTU, MAC, status.
func (c *comparer) adapters() {
	key := func(a *snapshot.HostAdapter) string { return a.Name }
	om, ok := keyed(c.old.Adapters, key)
	nm, nk := keyed(c.new.Adapters, key)
	pairs(om, nm, ok, nk, func(k string, o, n *snapshot.HostAdapter, inOld, inNew bool) {
		// ipconfig (collectlogs) does not list an adapter bound to a
		// vSwitch, which holds no address: across formats such an adapter
		// on one side only is no change.
		sameFormat := c.old.Format == c.new.Format
		switch {
		case !inNew:
			if sameFormat || len(o.Addresses) > 0 {
				c.add(Change{Kind: KindAdapter, Name: k, Change: Removed, Detail: prefixList(o.Addresses)})
			}
		case !inOld:
			if sameFormat || len(n.Addresses) > 0 {
				c.add(Change{Kind: KindAdapter, Name: k, Change: Added, Detail: prefixList(n.Addresses)})
			}
		default:
			base := Change{Kind: KindAdapter, Name: k}
			c.field(base, "Addresses", prefixList(o.Addresses), prefixList(n.Addresses))
			c.field(base, "Gateways", addrList(o.Gateways), addrList(n.Gateways))
			c.field(base, "MTU", itoa(o.MTU), itoa(n.MTU))
			c.field(base, "MAC", strings.ToLower(o.MAC), strings.ToLower(n.MAC))
			c.field(base, "Status", o.Status, n.Status)
		}
	})
}

func prefixList(ps []netip.Prefix) string {
	v := make([]string, 0, len(ps))
	for _, p := range ps {
		v = append(v, p.String())
	}
	return set(v)
}

func addrList(as []netip.Addr) string {
	v := make([]string, 0, len(as))
	for _, a := range as {
		v = append(v, addr(a))
	}
	return set(v)
}

// hostRoutes compares the host routing table by destination, next hop and
// interface; a changed metric is a change of the same route.
func (c *comparer) hostRoutes() {
	om, ok := keyed(podRoutes(c.old), routeKey)
	nm, nk := keyed(podRoutes(c.new), routeKey)
	pairs(om, nm, ok, nk, func(k string, o, n *snapshot.HostRoute, inOld, inNew bool) {
		switch {
		case !inNew:
			c.add(Change{Kind: KindHostRoute, Name: k, Change: Removed})
		case !inOld:
			c.add(Change{Kind: KindHostRoute, Name: k, Change: Added})
		default:
			// route print adds the interface metric, Get-NetRoute does
			// not: metrics compare only within one format.
			if o.Metric != 0 && n.Metric != 0 && c.old.Format == c.new.Format {
				c.field(Change{Kind: KindHostRoute, Name: k}, "Metric", itoa(o.Metric), itoa(n.Metric))
			}
		}
	})
}

// podRoutes leaves out loopback, multicast and broadcast routes, and the
// host routes Windows derives from the adapters' own addresses (the
// address itself and its subnet's broadcast, as /32 or /128): route print
// lists them and Get-NetRoute output often does not, the adapters'
// addresses are compared on their own, and none carries pod traffic.
func podRoutes(s *snapshot.Snapshot) []*snapshot.HostRoute {
	derived := map[netip.Addr]bool{}
	for _, a := range s.Adapters {
		for _, p := range a.Addresses {
			derived[p.Addr()] = true
			if b, ok := broadcast(p); ok {
				derived[b] = true
			}
		}
	}
	out := make([]*snapshot.HostRoute, 0, len(s.Routes))
	for _, r := range s.Routes {
		a := r.Destination.Addr()
		if a.IsLoopback() || a.IsMulticast() || a == netip.IPv4Unspecified() && r.Destination.Bits() == 32 ||
			a == netip.AddrFrom4([4]byte{255, 255, 255, 255}) ||
			r.Destination.IsSingleIP() && derived[a] {
			continue
		}
		out = append(out, r)
	}
	return out
}

// broadcast is the directed broadcast address of an IPv4 subnet.
func broadcast(p netip.Prefix) (netip.Addr, bool) {
	if !p.Addr().Is4() || p.Bits() >= 31 {
		return netip.Addr{}, false
	}
	b := p.Masked().Addr().As4()
	host := uint32(1)<<(32-p.Bits()) - 1
	v := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3]) | host
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

func routeKey(r *snapshot.HostRoute) string {
	k := r.Destination.String()
	// An unspecified next hop is on-link, as is none.
	if a := addr(r.NextHop); a != "" && !r.NextHop.IsUnspecified() {
		k += " via " + a
	}
	switch {
	case r.Interface != "":
		k += " on '" + r.Interface + "'"
	case r.IfIndex != 0:
		k += fmt.Sprintf(" on ifIndex %d", r.IfIndex)
	}
	return k
}

// os compares the build, its update revision and the hotfixes: a Windows
// update is a usual cause of "it worked yesterday".
func (c *comparer) os() {
	o, n := c.old.OS, c.new.OS
	if o == nil || n == nil {
		return
	}
	base := Change{Kind: KindOS, Name: n.ProductName}
	// winver.txt shows less than host/os.json: a value one side lacks is
	// unknown there, not changed.
	known := func(name, old, new string) {
		if old != "" && new != "" {
			c.field(base, name, old, new)
		}
	}
	known("ProductName", o.ProductName, n.ProductName)
	known("Build", itoa(o.Build), itoa(n.Build))
	known("UBR", itoa(o.UBR), itoa(n.UBR))
	key := func(s string) string { return strings.ToUpper(s) }
	om, ok := keyed(o.Hotfixes, key)
	nm, nk := keyed(n.Hotfixes, key)
	pairs(om, nm, ok, nk, func(k string, _, _ string, inOld, inNew bool) {
		switch {
		case !inNew:
			c.add(Change{Kind: KindHotfix, Name: k, Change: Removed})
		case !inOld:
			c.add(Change{Kind: KindHotfix, Name: k, Change: Added})
		}
	})
}
