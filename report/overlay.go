package report

import (
	"net/netip"
	"strings"

	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/snapshot"
)

// Overlay is the picture of the VXLAN overlay the HTML report draws: the
// nodes with their VTEP address and pod subnets, and the tunnels their
// routes point to, with the broken parts marked.
type Overlay struct {
	Nodes   []*OverlayNode   `json:"nodes"`
	Tunnels []*OverlayTunnel `json:"tunnels"`
}

// OverlayNode is one node: an input, or a peer the inputs only point to.
type OverlayNode struct {
	Key        string   `json:"key"`
	Name       string   `json:"name"`
	OS         string   `json:"os,omitempty"`
	InInput    bool     `json:"inInput"`
	VTEP       string   `json:"vtep,omitempty"` // ManagementIP, vxlan local address, or InternalIP
	VTEPBroken bool     `json:"vtepBroken,omitempty"`
	Problem    string   `json:"problem,omitempty"` // why the VTEP is marked
	Subnets    []string `json:"subnets,omitempty"`
	addrs      []netip.Addr
	prefixes   []netip.Prefix
}

// Tunnel states.
const (
	TunnelOK      = "ok"
	TunnelBroken  = "broken"  // points at a wrong or broken VTEP
	TunnelMissing = "missing" // a route that should exist does not
)

// OverlayTunnel is one encapsulation path From → To.
type OverlayTunnel struct {
	From   string `json:"from"`
	To     string `json:"to"`
	Prefix string `json:"prefix,omitempty"`
	Via    string `json:"via,omitempty"` // the ProviderAddress / FDB destination used
	Status string `json:"status"`
	Note   string `json:"note,omitempty"`
}

func (n *OverlayNode) has(a netip.Addr) bool {
	for _, x := range n.addrs {
		if x == a {
			return true
		}
	}
	return false
}

type overlayBuilder struct {
	o     *Overlay
	kube  map[string]*snapshot.KubeNode // every Kubernetes Node any input knows
	byKey map[string]*OverlayNode
	idx   *nodeIndex
	kidx  *kubeIndex // built on first use, once kube is complete
}

// buildOverlay draws the overlay from the inputs and marks what the
// findings (through their subjects) say is broken.
func buildOverlay(snaps []*snapshot.Snapshot, findings []finding.Finding) *Overlay {
	b := &overlayBuilder{o: &Overlay{}, kube: map[string]*snapshot.KubeNode{}, byKey: map[string]*OverlayNode{}, idx: newNodeIndex()}
	for _, s := range snaps {
		for _, k := range s.KubeNodes {
			b.kube[k.Name] = k
		}
	}
	// The inputs first, so that peers resolve to them.
	self := make([]*OverlayNode, len(snaps))
	for i, s := range snaps {
		self[i] = b.inputNode(s, findings)
	}
	for i, s := range snaps {
		if self[i] == nil {
			continue
		}
		if n := cniOverlayNetwork(s); n != nil {
			b.windowsTunnels(self[i], n)
		}
		if s.Linux != nil {
			b.linuxTunnels(self[i], s.Linux)
		}
		b.missingTunnels(self[i], s, findings)
	}
	if len(b.o.Nodes) == 0 {
		return nil
	}
	return b.o
}

func cniOverlayNetwork(s *snapshot.Snapshot) *snapshot.Network {
	if n := s.CNINetwork(); n != nil && n.IsOverlayOrBridge() {
		return n
	}
	for _, n := range s.Networks {
		if n.Type == snapshot.TypeOverlay && !strings.EqualFold(n.Name, "External") {
			return n
		}
	}
	return nil
}

func (b *overlayBuilder) add(n *OverlayNode) *OverlayNode {
	if old, ok := b.byKey[n.Key]; ok {
		return old
	}
	b.byKey[n.Key] = n
	b.idx.add(len(b.o.Nodes), n)
	b.o.Nodes = append(b.o.Nodes, n)
	return n
}

// inputNode is the node an input describes, with its VTEP marked when a
// finding names that address.
func (b *overlayBuilder) inputNode(s *snapshot.Snapshot, findings []finding.Finding) *OverlayNode {
	name := s.NodeName()
	if name == "" {
		name = s.Source
	}
	node := &OverlayNode{Key: "input:" + s.Source, Name: name, InInput: true}
	if n := cniOverlayNetwork(s); n != nil {
		node.OS = "windows"
		if n.ManagementIP.IsValid() {
			node.VTEP = n.ManagementIP.String()
			node.addrs = append(node.addrs, n.ManagementIP)
		}
		for _, p := range n.Prefixes() {
			node.Subnets = append(node.Subnets, p.String())
			node.prefixes = append(node.prefixes, p)
		}
	} else if s.Linux != nil && len(s.Linux.VXLANLinks()) > 0 {
		node.OS = "linux"
		for _, l := range s.Linux.VXLANLinks() {
			if l.VXLAN.Local.IsValid() && node.VTEP == "" {
				node.VTEP = l.VXLAN.Local.String()
			}
			node.addrs = append(node.addrs, l.VXLAN.Local)
			for _, a := range l.Addresses {
				node.Subnets = append(node.Subnets, l.Name+" "+a.Addr().String())
				node.prefixes = append(node.prefixes, netip.PrefixFrom(a.Addr(), a.Addr().BitLen()))
			}
		}
	} else {
		return nil // nothing of the overlay in this input
	}
	for _, a := range s.Adapters {
		for _, p := range a.Addresses {
			node.addrs = append(node.addrs, p.Addr())
		}
	}
	if k, ok := b.kube[name]; ok {
		node.addrs = append(node.addrs, k.InternalIPs...)
		if t := k.CalicoVXLANTunnelAddr(); t.IsValid() {
			node.prefixes = append(node.prefixes, netip.PrefixFrom(t, 32))
		}
	}
	for _, f := range findings {
		if f.Input == s.Source && f.Severity >= finding.Warn && marksVTEP(f.ID) && hasSubject(f, "address:"+node.VTEP) {
			node.VTEPBroken = true
			node.Problem = f.ID + " " + f.Title
		}
	}
	return b.add(node)
}

// marksVTEP says whether a rule's findings about a VTEP's address mean
// the tunnel endpoint itself is wrong (overlay addressing, cross-node
// routes, Calico and flannel VTEPs, what a capture saw on the wire). Other
// rules name the address too without the tunnel being broken: HOST-05's
// vSwitch on an adapter without a gateway breaks pods' egress, not the
// overlay between nodes, and must not draw a red ✗ on a working VTEP.
func marksVTEP(id string) bool {
	fam, _, _ := strings.Cut(id, "-")
	switch fam {
	case "OVL", "XN", "CAL", "FLN", "CAP":
		return true
	}
	return false
}

func hasSubject(f finding.Finding, subject string) bool {
	for _, s := range f.Subjects {
		if s == subject {
			return true
		}
	}
	return false
}

// peerFor finds the node a route of from points to: by the pod subnet the
// route is for, then by the VTEP address, then by any address of the node
// (every Vagrant VM has 10.0.2.15, so addresses come last), then among the
// Kubernetes Nodes, else a bare address.
func (b *overlayBuilder) peerFor(from *OverlayNode, via netip.Addr, prefix netip.Prefix) *OverlayNode {
	if prefix.IsValid() {
		if n := b.idx.overlapping(b.o.Nodes, from, prefix); n != nil {
			return n
		}
	}
	if via.IsValid() {
		if i := first(b.o.Nodes, from, b.idx.vtep[via.String()]); i >= 0 {
			return b.o.Nodes[i]
		}
		if i := first(b.o.Nodes, from, b.idx.addr[via]); i >= 0 {
			return b.o.Nodes[i]
		}
	}
	if b.kidx == nil {
		b.kidx = newKubeIndex(b.kube)
	}
	if k := b.kidx.match(from.Name, via, prefix); k != nil {
		n := &OverlayNode{Key: "kube:" + k.Name, Name: k.Name, OS: k.OS, VTEP: addrString(k.InternalIP()), addrs: k.InternalIPs}
		if prefix.IsValid() {
			n.Subnets, n.prefixes = []string{prefix.String()}, []netip.Prefix{prefix}
		}
		return b.add(n)
	}
	n := &OverlayNode{Key: "addr:" + via.String(), Name: via.String(), VTEP: via.String(), addrs: []netip.Addr{via}}
	if prefix.IsValid() {
		n.Subnets, n.prefixes = []string{prefix.String()}, []netip.Prefix{prefix}
	}
	return b.add(n)
}

func addrString(a netip.Addr) string {
	if !a.IsValid() {
		return ""
	}
	return a.String()
}

func (b *overlayBuilder) tunnel(from, to *OverlayNode, prefix netip.Prefix, via netip.Addr) {
	t := &OverlayTunnel{From: from.Key, To: to.Key, Prefix: prefix.String(), Via: addrString(via), Status: TunnelOK}
	switch {
	case to.VTEPBroken && to.has(via):
		t.Status, t.Note = TunnelBroken, "to "+to.Name+"'s VTEP "+via.String()+", which is on the wrong adapter"
	case to.InInput && to.VTEP != "" && via.IsValid() && via.String() != to.VTEP:
		t.Status, t.Note = TunnelBroken, "to "+via.String()+", but "+to.Name+"'s VTEP is "+to.VTEP
	}
	if from == to {
		t.Status, t.Note = TunnelBroken, "points back at this node"
	}
	b.o.Tunnels = append(b.o.Tunnels, t)
}

func (b *overlayBuilder) windowsTunnels(self *OverlayNode, n *snapshot.Network) {
	for _, r := range n.RemoteSubnetRoutes {
		if !r.ProviderAddress.IsValid() {
			continue
		}
		b.tunnel(self, b.peerFor(self, r.ProviderAddress, r.DestinationPrefix), r.DestinationPrefix, r.ProviderAddress)
	}
}

// linuxTunnels draws every route through a VXLAN device to the VTEP its
// neighbour and FDB entries lead to (snapshot.VXLANRoutes).
func (b *overlayBuilder) linuxTunnels(self *OverlayNode, ln *snapshot.LinuxNet) {
	for _, vr := range ln.VXLANRoutes() {
		via := vr.VTEP
		prefix := vr.Prefix()
		if !via.IsValid() {
			b.o.Tunnels = append(b.o.Tunnels, &OverlayTunnel{From: self.Key, To: b.peerFor(self, via, prefix).Key, Prefix: prefix.String(),
				Status: TunnelMissing, Note: "no FDB entry for the next hop's MAC"})
			continue
		}
		b.tunnel(self, b.peerFor(self, via, prefix), prefix, via)
	}
}

// missingTunnels draws the routes OVL-02 found missing.
func (b *overlayBuilder) missingTunnels(self *OverlayNode, s *snapshot.Snapshot, findings []finding.Finding) {
	for _, f := range findings {
		if f.Input != s.Source || f.ID != "OVL-02" {
			continue
		}
		for _, subj := range f.Subjects {
			name, ok := strings.CutPrefix(subj, "node:")
			if !ok {
				continue
			}
			var peer *OverlayNode
			if i, ok := b.idx.name[name]; ok {
				peer = b.o.Nodes[i]
			} else {
				peer = &OverlayNode{Key: "kube:" + name, Name: name}
				if k, ok := b.kube[name]; ok {
					peer.OS, peer.VTEP, peer.addrs = k.OS, addrString(k.InternalIP()), k.InternalIPs
				}
				peer = b.add(peer)
			}
			b.o.Tunnels = append(b.o.Tunnels, &OverlayTunnel{From: self.Key, To: peer.Key, Status: TunnelMissing, Note: "no RemoteSubnetRoute (OVL-02)"})
		}
	}
}
