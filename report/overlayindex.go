package report

import (
	"net/netip"
	"sort"

	"github.com/wincni/diag/snapshot"
)

// The overlay builder resolves every route of every input to a peer node.
// Scanning all nodes per route made a 5,000-node bundle quadratic; these
// indexes answer the same questions, with the same first-match order (the
// order nodes were added, Kubernetes Nodes by name), in a few map lookups.

// nodeIndex indexes the overlay's nodes as they are added.
type nodeIndex struct {
	within map[netip.Prefix][]int // a prefix → nodes with a prefix inside it (or equal)
	exact  map[netip.Prefix][]int // a node prefix (masked) → nodes
	vtep   map[string][]int
	addr   map[netip.Addr][]int
	name   map[string]int // the last node of the name
}

func newNodeIndex() *nodeIndex {
	return &nodeIndex{within: map[netip.Prefix][]int{}, exact: map[netip.Prefix][]int{},
		vtep: map[string][]int{}, addr: map[netip.Addr][]int{}, name: map[string]int{}}
}

func (x *nodeIndex) add(i int, n *OverlayNode) {
	for _, p := range n.prefixes {
		if !p.IsValid() {
			continue
		}
		p = p.Masked()
		x.exact[p] = appendOnce(x.exact[p], i)
		for l := p.Bits(); l >= 0; l-- {
			q, _ := p.Addr().Prefix(l)
			x.within[q] = appendOnce(x.within[q], i)
		}
	}
	x.vtep[n.VTEP] = appendOnce(x.vtep[n.VTEP], i)
	for _, a := range n.addrs {
		x.addr[a] = appendOnce(x.addr[a], i)
	}
	x.name[n.Name] = i
}

func appendOnce(s []int, i int) []int {
	if len(s) > 0 && s[len(s)-1] == i {
		return s
	}
	return append(s, i)
}

// first is the lowest index in the lists whose node is not skip; -1 if none.
func first(nodes []*OverlayNode, skip *OverlayNode, lists ...[]int) int {
	return lowest(func(i int) bool { return nodes[i] == skip }, lists...)
}

// lowest is the lowest index in the lists (each in ascending order) that
// skip does not refuse; -1 if none.
func lowest(skip func(int) bool, lists ...[]int) int {
	best := -1
	for _, l := range lists {
		for _, i := range l {
			if skip(i) {
				continue
			}
			if best < 0 || i < best {
				best = i
			}
			break // the lists are in ascending order
		}
	}
	return best
}

// overlapping is the first node (other than from) with a prefix that
// overlaps p: one inside p, or one p is inside.
func (x *nodeIndex) overlapping(nodes []*OverlayNode, from *OverlayNode, p netip.Prefix) *OverlayNode {
	p = p.Masked()
	lists := [][]int{x.within[p]}
	for l := p.Bits() - 1; l >= 0; l-- {
		q, _ := p.Addr().Prefix(l)
		if s := x.exact[q]; len(s) > 0 {
			lists = append(lists, s)
		}
	}
	if i := first(nodes, from, lists...); i >= 0 {
		return nodes[i]
	}
	return nil
}

// kubeIndex indexes the Kubernetes Nodes by name order.
type kubeIndex struct {
	nodes  []*snapshot.KubeNode // by name
	addr   map[netip.Addr][]int // InternalIPs and ExternalIPs
	tunnel map[netip.Prefix][]int
	cidr   map[netip.Prefix][]int
}

func newKubeIndex(kube map[string]*snapshot.KubeNode) *kubeIndex {
	x := &kubeIndex{addr: map[netip.Addr][]int{}, tunnel: map[netip.Prefix][]int{}, cidr: map[netip.Prefix][]int{}}
	for _, k := range kube {
		x.nodes = append(x.nodes, k)
	}
	sort.Slice(x.nodes, func(i, j int) bool { return x.nodes[i].Name < x.nodes[j].Name })
	for i, k := range x.nodes {
		for _, a := range k.InternalIPs {
			x.addr[a] = appendOnce(x.addr[a], i)
		}
		for _, a := range k.ExternalIPs {
			x.addr[a] = appendOnce(x.addr[a], i)
		}
		if t := k.CalicoVXLANTunnelAddr(); t.IsValid() {
			for l := t.BitLen(); l >= 0; l-- {
				q, _ := t.Prefix(l)
				x.tunnel[q] = appendOnce(x.tunnel[q], i)
			}
		}
		for _, p := range k.PodCIDRs {
			x.cidr[p] = appendOnce(x.cidr[p], i)
		}
	}
	return x
}

// match is the first Kubernetes Node by name (other than the one named
// skip) that has the address via, whose Calico tunnel address is in
// prefix, or whose pod CIDR is prefix.
func (x *kubeIndex) match(skip string, via netip.Addr, prefix netip.Prefix) *snapshot.KubeNode {
	lists := [][]int{x.addr[via]}
	if prefix.IsValid() {
		lists = append(lists, x.tunnel[prefix.Masked()], x.cidr[prefix])
	}
	best := lowest(func(i int) bool { return x.nodes[i].Name == skip }, lists...)
	if best < 0 {
		return nil
	}
	return x.nodes[best]
}
