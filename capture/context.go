package capture

import (
	"net"
	"net/netip"
	"strconv"

	"github.com/wincni/diag/snapshot"
)

// Context is what bundles say about the cluster, so that a capture can be
// judged against it: whose addresses are VTEPs, which DR MAC each expects,
// which prefixes are pod subnets, and which VNI is in use.
type Context struct {
	NodeAddrs   map[netip.Addr]string // address → whose it is
	PodPrefixes []netip.Prefix
	DrMACs      map[netip.Addr]string // VTEP address → DR MAC (lower-case, colons)
	LocalMACs   map[string]bool       // endpoint MACs that inner frames may be addressed to
	ExpectedVNI uint32
	VNISource   string
	MTU         int
}

// ContextFromSnapshots gathers the context of one or more bundles.
func ContextFromSnapshots(snaps ...*snapshot.Snapshot) *Context {
	c := &Context{NodeAddrs: map[netip.Addr]string{}, DrMACs: map[netip.Addr]string{}, LocalMACs: map[string]bool{}}
	for _, s := range snaps {
		name := s.NodeName()
		if n := s.CNINetwork(); n != nil {
			if n.ManagementIP.IsValid() {
				c.NodeAddrs[n.ManagementIP] = name + " ManagementIP"
				if n.DrMAC != "" {
					c.DrMACs[n.ManagementIP] = n.DrMAC
				}
			}
			c.PodPrefixes = append(c.PodPrefixes, n.Prefixes()...)
			for _, r := range n.RemoteSubnetRoutes {
				if r.ProviderAddress.IsValid() {
					c.NodeAddrs[r.ProviderAddress] = "ProviderAddress of " + name + "'s route to " + r.DestinationPrefix.String()
					if r.DrMAC != "" {
						c.DrMACs[r.ProviderAddress] = r.DrMAC
					}
				}
				if r.DestinationPrefix.IsValid() {
					c.PodPrefixes = append(c.PodPrefixes, r.DestinationPrefix)
				}
			}
			for _, e := range s.Endpoints {
				if !e.IsRemote && e.MAC != "" {
					c.LocalMACs[e.MAC] = true
				}
			}
			if v, err := strconv.ParseUint(s.Facts.VNI.Value, 10, 32); err == nil && c.ExpectedVNI == 0 {
				c.ExpectedVNI, c.VNISource = uint32(v), s.Facts.VNI.Source
			}
		}
		if s.Linux != nil {
			for _, l := range s.Linux.VXLANLinks() {
				if l.VXLAN.Local.IsValid() {
					c.NodeAddrs[l.VXLAN.Local] = name + " " + l.Name + " local address"
					if l.MAC != "" {
						c.DrMACs[l.VXLAN.Local] = l.MAC
					}
				}
				if c.ExpectedVNI == 0 && l.VXLAN.VNI != 0 {
					c.ExpectedVNI, c.VNISource = uint32(l.VXLAN.VNI), name+" "+l.Name+" VNI"
				}
			}
		}
		for _, k := range s.KubeNodes {
			for _, ip := range k.InternalIPs {
				if _, known := c.NodeAddrs[ip]; !known {
					c.NodeAddrs[ip] = "node " + k.Name + " InternalIP"
				}
			}
			if ip := k.FlannelPublicIP(); ip.IsValid() {
				if _, known := c.NodeAddrs[ip]; !known {
					c.NodeAddrs[ip] = "node " + k.Name + " flannel public-ip"
				}
			}
		}
		if cidr := s.Facts.ClusterCIDR.Prefix(); cidr.IsValid() {
			c.PodPrefixes = append(c.PodPrefixes, cidr)
		}
	}
	return c
}

// expectedMAC says whether an inner frame sent to VTEP dst may carry this
// destination MAC; want is the DR MAC expected, "" when unknown.
func (c *Context) expectedMAC(dst netip.Addr, mac [6]byte) (want string, ok bool) {
	want = c.DrMACs[dst]
	if want == "" {
		return "", true
	}
	got := net.HardwareAddr(mac[:]).String()
	return want, got == want || c.LocalMACs[got] || mac[0]&1 == 1 // multicast/broadcast (ARP) is fine
}
