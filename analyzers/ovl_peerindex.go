package analyzers

import (
	"net/netip"

	"github.com/wincni/diag/snapshot"
)

// peerIndex finds the Kubernetes Node a route is for: by pod CIDR
// (flannel), by VXLAN tunnel address (Calico). Built once per network so
// that a 1,000-route network is not matched against 1,000 nodes per route.
type peerIndex struct {
	byCIDR map[netip.Prefix]*snapshot.KubeNode
	calico []calicoPeer // nodes with a VXLAN tunnel address, in order
	// byBlock[bits] holds, per tunnel address masked to bits, the first
	// node of calico with it: a route of that length finds the node its
	// block holds in one lookup. Filled for a length when first asked.
	byBlock map[int]map[netip.Prefix]*snapshot.KubeNode
}

type calicoPeer struct {
	node   *snapshot.KubeNode
	tunnel netip.Addr // parsed once, not once per route
}

func newPeerIndex(s *snapshot.Snapshot, n *snapshot.Network) *peerIndex {
	idx := &peerIndex{byCIDR: map[netip.Prefix]*snapshot.KubeNode{}}
	for _, k := range s.KubeNodes {
		if isSelfNode(s, n, k) {
			continue
		}
		for _, p := range k.PodCIDRs {
			if _, seen := idx.byCIDR[p]; !seen {
				idx.byCIDR[p] = k
			}
		}
		if t := k.CalicoVXLANTunnelAddr(); t.IsValid() {
			idx.calico = append(idx.calico, calicoPeer{k, t})
		}
	}
	return idx
}

// peer is the node whose pod CIDR is the route's prefix, else the first
// node (in the Nodes' order) whose tunnel address the prefix contains.
func (idx *peerIndex) peer(r snapshot.RemoteSubnetRoute) *snapshot.KubeNode {
	if k := idx.byCIDR[r.DestinationPrefix]; k != nil {
		return k
	}
	d := r.DestinationPrefix
	if !d.IsValid() || len(idx.calico) == 0 {
		return nil
	}
	return idx.blocks(d.Bits())[d.Masked()]
}

func (idx *peerIndex) blocks(bits int) map[netip.Prefix]*snapshot.KubeNode {
	if m, ok := idx.byBlock[bits]; ok {
		return m
	}
	m := make(map[netip.Prefix]*snapshot.KubeNode, len(idx.calico))
	for _, c := range idx.calico {
		if c.tunnel.Zone() != "" {
			continue // netip.Prefix.Contains holds no zoned address
		}
		b, err := c.tunnel.Prefix(bits) // fails when bits exceeds its family
		if err != nil {
			continue
		}
		if _, seen := m[b]; !seen {
			m[b] = c.node
		}
	}
	if idx.byBlock == nil {
		idx.byBlock = map[int]map[netip.Prefix]*snapshot.KubeNode{}
	}
	idx.byBlock[bits] = m
	return m
}
