package snapshot

import (
	"net/netip"
)

// LinuxNet is a Linux node's overlay-relevant state.
type LinuxNet struct {
	Links     []*LinuxLink     `json:"links,omitempty"`
	Routes    []*LinuxRoute    `json:"routes,omitempty"`
	Neighbors []*LinuxNeighbor `json:"neighbors,omitempty"`
	FDB       []*LinuxFDBEntry `json:"fdb,omitempty"`
}

// LinuxLink is a network device.
type LinuxLink struct {
	Name      string         `json:"name"`
	Index     int64          `json:"index,omitempty"`
	MTU       int64          `json:"mtu,omitempty"`
	MAC       string         `json:"mac,omitempty"`
	State     string         `json:"state,omitempty"`
	Kind      string         `json:"kind,omitempty"` // vxlan, bridge, veth, ...
	VXLAN     *VXLANDevice   `json:"vxlan,omitempty"`
	Addresses []netip.Prefix `json:"addresses,omitempty"`
}

// VXLANDevice is the VXLAN configuration of a link (flannel.1, vxlan.calico).
type VXLANDevice struct {
	VNI      int64      `json:"vni"`
	Local    netip.Addr `json:"local,omitzero"`
	Port     int64      `json:"port"` // destination UDP port
	Dev      string     `json:"dev,omitempty"`
	Learning bool       `json:"learning"`
}

// LinuxRoute is a route of the main table.
type LinuxRoute struct {
	Dst      string     `json:"dst"` // "default" or a CIDR or an address
	Gateway  netip.Addr `json:"gateway,omitzero"`
	Dev      string     `json:"dev,omitempty"`
	Onlink   bool       `json:"onlink"`
	Protocol string     `json:"protocol,omitempty"`
}

// LinuxNeighbor is an ARP/NDP entry.
type LinuxNeighbor struct {
	Dst   netip.Addr `json:"dst,omitzero"`
	MAC   string     `json:"mac,omitempty"`
	Dev   string     `json:"dev,omitempty"`
	State string     `json:"state,omitempty"`
}

// LinuxFDBEntry is a bridge forwarding entry; on a VXLAN device, dst is
// the remote VTEP the MAC is reached through.
type LinuxFDBEntry struct {
	MAC   string     `json:"mac"`
	Dev   string     `json:"dev,omitempty"`
	Dst   netip.Addr `json:"dst,omitzero"`
	VNI   int64      `json:"vni,omitempty"`
	State string     `json:"state,omitempty"`
}

// Prefix parses Dst ("default" is 0.0.0.0/0; a bare address is a host route).
func (r *LinuxRoute) Prefix() netip.Prefix {
	if r.Dst == "default" {
		return netip.MustParsePrefix("0.0.0.0/0")
	}
	if p := ParsePrefix(r.Dst); p.IsValid() {
		return p
	}
	if a := ParseAddr(r.Dst); a.IsValid() {
		return netip.PrefixFrom(a, a.BitLen())
	}
	return netip.Prefix{}
}

// VXLANLinks are the node's VXLAN devices.
func (ln *LinuxNet) VXLANLinks() []*LinuxLink {
	var out []*LinuxLink
	for _, l := range ln.Links {
		if l.VXLAN != nil {
			out = append(out, l)
		}
	}
	return out
}

// VXLANRoute is a route through a VXLAN device, followed the way the kernel
// does: the gateway's neighbour entry gives the inner destination MAC, and
// the device's FDB entry for that MAC the remote VTEP.
type VXLANRoute struct {
	*LinuxRoute
	MAC  string     // "" when no neighbour entry matches
	VTEP netip.Addr // invalid when no FDB entry matches
}

// VXLANRoutes are the node's routes through its VXLAN devices, resolved.
func (ln *LinuxNet) VXLANRoutes() []VXLANRoute {
	vx := map[string]bool{}
	for _, l := range ln.VXLANLinks() {
		vx[l.Name] = true
	}
	type devKey struct{ dev, key string }
	// The last matching entry wins, as the scans this replaces had it.
	neighbour := map[devKey]string{}
	for _, nb := range ln.Neighbors {
		neighbour[devKey{nb.Dev, nb.Dst.String()}] = nb.MAC
	}
	fdb := map[devKey]netip.Addr{}
	for _, f := range ln.FDB {
		fdb[devKey{f.Dev, f.MAC}] = f.Dst
	}
	var out []VXLANRoute
	for _, r := range ln.Routes {
		if !vx[r.Dev] {
			continue
		}
		vr := VXLANRoute{LinuxRoute: r, MAC: neighbour[devKey{r.Dev, r.Gateway.String()}]}
		if vr.MAC != "" {
			vr.VTEP = fdb[devKey{r.Dev, vr.MAC}]
		}
		out = append(out, vr)
	}
	return out
}
