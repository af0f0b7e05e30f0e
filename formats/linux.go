package formats

import (
	"net/netip"
	"strings"

	"github.com/wincni/diag/snapshot"
)

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
func addLinux(ln *snapshot.LinuxNet, objs []obj) int {
	n := 0
	for _, o := range objs {
		switch linuxKind(o) {
		case "link":
			l := linuxLink(ln, o.str("ifname"))
			l.Index, _ = o.num("ifindex")
			l.MTU, _ = o.num("mtu")
			l.MAC = snapshot.NormalizeMAC(o.str("address"))
			l.State = o.str("operstate")
			info := o.child("linkinfo")
			l.Kind = info.str("info_kind")
			if l.Kind == "vxlan" {
				d := info.child("info_data")
				v := &snapshot.VXLANDevice{Local: snapshot.ParseAddr(d.str("local")), Dev: d.str("link")}
				v.VNI, _ = d.num("id")
				v.Port, _ = d.num("port")
				v.Learning, _ = d.boolean("learning")
				l.VXLAN = v
			}
		case "addr":
			l := linuxLink(ln, o.str("ifname"))
			for _, a := range o.list("addr_info") {
				if ip := snapshot.ParseAddr(a.str("local")); ip.IsValid() {
					bits, _ := a.num("prefixlen")
					if bits < 0 || int(bits) > ip.BitLen() {
						bits = int64(ip.BitLen())
					}
					l.Addresses = append(l.Addresses, netip.PrefixFrom(ip, int(bits)))
				}
			}
		case "route":
			r := &snapshot.LinuxRoute{Dst: o.str("dst"), Gateway: snapshot.ParseAddr(o.str("gateway")), Dev: o.str("dev"), Protocol: o.str("protocol")}
			for _, f := range o.strs("flags") {
				r.Onlink = r.Onlink || f == "onlink"
			}
			ln.Routes = append(ln.Routes, r)
		case "neigh":
			ln.Neighbors = append(ln.Neighbors, &snapshot.LinuxNeighbor{Dst: snapshot.ParseAddr(o.str("dst")), MAC: snapshot.NormalizeMAC(o.str("lladdr")),
				Dev: o.str("dev"), State: strings.Join(o.strs("state"), ",")})
		case "fdb":
			e := &snapshot.LinuxFDBEntry{MAC: snapshot.NormalizeMAC(o.str("mac")), Dev: o.str("ifname", "dev"), Dst: snapshot.ParseAddr(o.str("dst")), State: o.str("state")}
			e.VNI, _ = o.num("vni", "src_vni")
			ln.FDB = append(ln.FDB, e)
		default:
			continue
		}
		n++
	}
	return n
}

func linuxLink(ln *snapshot.LinuxNet, name string) *snapshot.LinuxLink {
	for _, l := range ln.Links {
		if l.Name == name {
			return l
		}
	}
	l := &snapshot.LinuxLink{Name: name}
	ln.Links = append(ln.Links, l)
	return l
}

// adapters presents the Linux links with addresses as host adapters, so
// that rules can find a node's underlay address the same way on both OSes.
func linuxAdapters(ln *snapshot.LinuxNet) []*snapshot.HostAdapter {
	var out []*snapshot.HostAdapter
	for _, l := range ln.Links {
		if len(l.Addresses) == 0 || l.Name == "lo" {
			continue
		}
		out = append(out, &snapshot.HostAdapter{Name: l.Name, IfIndex: l.Index, MAC: l.MAC, MTU: l.MTU, Status: l.State, Addresses: l.Addresses, Description: l.Kind})
	}
	return out
}
