package snapshot

import (
	"net/netip"
	"strings"
)

// The Linux side of a mixed cluster, from iproute2's JSON output:
// `ip -j -d link`, `ip -j addr`, `ip -j route`, `ip -j neigh`, `bridge -j fdb`.

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
	if p := parsePrefix(r.Dst); p.IsValid() {
		return p
	}
	if a := parseAddr(r.Dst); a.IsValid() {
		return netip.PrefixFrom(a, a.BitLen())
	}
	return netip.Prefix{}
}

// linuxKind tells the iproute2 outputs apart by the keys of their objects.
func linuxKind(o obj) string {
	_, hasIfname := o.get("ifname")
	_, hasDst := o.get("dst")
	_, hasMAC := o.get("mac")
	_, hasLL := o.get("lladdr")
	switch {
	case hasIfname && o.child("linkinfo") != nil, hasIfname && o.str("link_type") != "" && o.list("addr_info") == nil:
		return "link"
	case hasIfname && o.list("addr_info") != nil:
		return "addr"
	case hasMAC && (hasIfname || hasDst):
		return "fdb"
	case hasDst && hasLL, hasDst && o.str("state") != "" && o.str("gateway") == "" && o.str("protocol") == "":
		return "neigh"
	case hasDst:
		return "route"
	}
	return ""
}

// add reads one iproute2 output into the model and returns how many
// objects it took.
func (ln *LinuxNet) add(objs []obj) int {
	n := 0
	for _, o := range objs {
		switch linuxKind(o) {
		case "link":
			l := ln.link(o.str("ifname"))
			l.Index, _ = o.num("ifindex")
			l.MTU, _ = o.num("mtu")
			l.MAC = NormalizeMAC(o.str("address"))
			l.State = o.str("operstate")
			info := o.child("linkinfo")
			l.Kind = info.str("info_kind")
			if l.Kind == "vxlan" {
				d := info.child("info_data")
				v := &VXLANDevice{Local: parseAddr(d.str("local")), Dev: d.str("link")}
				v.VNI, _ = d.num("id")
				v.Port, _ = d.num("port")
				v.Learning, _ = d.boolean("learning")
				l.VXLAN = v
			}
		case "addr":
			l := ln.link(o.str("ifname"))
			for _, a := range o.list("addr_info") {
				if ip := parseAddr(a.str("local")); ip.IsValid() {
					bits, _ := a.num("prefixlen")
					if bits < 0 || int(bits) > ip.BitLen() {
						bits = int64(ip.BitLen())
					}
					l.Addresses = append(l.Addresses, netip.PrefixFrom(ip, int(bits)))
				}
			}
		case "route":
			r := &LinuxRoute{Dst: o.str("dst"), Gateway: parseAddr(o.str("gateway")), Dev: o.str("dev"), Protocol: o.str("protocol")}
			for _, f := range o.strs("flags") {
				r.Onlink = r.Onlink || f == "onlink"
			}
			ln.Routes = append(ln.Routes, r)
		case "neigh":
			ln.Neighbors = append(ln.Neighbors, &LinuxNeighbor{Dst: parseAddr(o.str("dst")), MAC: NormalizeMAC(o.str("lladdr")),
				Dev: o.str("dev"), State: strings.Join(o.strs("state"), ",")})
		case "fdb":
			e := &LinuxFDBEntry{MAC: NormalizeMAC(o.str("mac")), Dev: o.str("ifname", "dev"), Dst: parseAddr(o.str("dst")), State: o.str("state")}
			e.VNI, _ = o.num("vni", "src_vni")
			ln.FDB = append(ln.FDB, e)
		default:
			continue
		}
		n++
	}
	return n
}

func (ln *LinuxNet) link(name string) *LinuxLink {
	for _, l := range ln.Links {
		if l.Name == name {
			return l
		}
	}
	l := &LinuxLink{Name: name}
	ln.Links = append(ln.Links, l)
	return l
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

// adapters presents the Linux links with addresses as host adapters, so
// that rules can find a node's underlay address the same way on both OSes.
func (ln *LinuxNet) adapters() []*HostAdapter {
	var out []*HostAdapter
	for _, l := range ln.Links {
		if len(l.Addresses) == 0 || l.Name == "lo" {
			continue
		}
		out = append(out, &HostAdapter{Name: l.Name, IfIndex: l.Index, MAC: l.MAC, MTU: l.MTU, Status: l.State, Addresses: l.Addresses, Description: l.Kind})
	}
	return out
}
