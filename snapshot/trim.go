package snapshot

import (
	"hash/maphash"
	"net/netip"
	"slices"
)

// DropNodeDetail lets a snapshot go of what only the per-node rules read,
// once they ran (analyzers.RunNode): the remote endpoints, load balancers,
// VFP rules, Services, EndpointSlices and the rest that a node in a large
// cluster holds by the tens of thousands. What stays is what the
// cross-node rules, the capture context and the report read: the facts,
// networks with their routes, adapters and routes, Kubernetes Nodes, the
// Linux side, the local endpoints (their MACs tell a capture's pods), the
// inputs and notes. Analyzing fifty bundles then holds fifty of these,
// not fifty whole snapshots.
func (s *Snapshot) DropNodeDetail() {
	local := s.Endpoints[:0:0]
	for _, e := range s.Endpoints {
		if !e.IsRemote {
			local = append(local, e)
		}
	}
	s.Endpoints = local
	s.LoadBalancers = nil
	s.Namespaces = nil
	s.VFPPorts = nil
	s.Services = nil
	s.EndpointSlices = nil
	s.Pods = nil
	s.Logs = nil
	s.CalicoIPAM = nil
	s.HNSDiag = nil
	s.slicesByService = nil
	s.lbsByVIP, s.lbsIndexed, s.epsByID = nil, nil, nil
}

// KubeNodeTable keeps one copy of each Kubernetes Node that many inputs
// hold alike: every bundle of a cluster carries the whole cluster's Node
// list (a 1,000-node cluster's is 0.8 MB in the model), so fifty bundles
// of one cluster would otherwise keep fifty copies of it. Nodes that
// differ in anything (collected at another time, a changed annotation)
// stay apart. The nodes are read-only once loaded.
//
// The table holds a hash of each node, not a key spelling the node out:
// the table lives through the analysis, and a thousand spelled-out nodes
// were 0.3 MB of it.
type KubeNodeTable struct {
	seed maphash.Seed
	m    map[uint64]*KubeNode
}

// Share points s's Kubernetes Nodes at the copies already kept.
func (t *KubeNodeTable) Share(s *Snapshot) {
	if t.m == nil {
		t.seed = maphash.MakeSeed()
		t.m = make(map[uint64]*KubeNode, len(s.KubeNodes))
	}
	for i, n := range s.KubeNodes {
		h := n.hash(t.seed)
		switch c, ok := t.m[h]; {
		case !ok:
			t.m[h] = n
		case c.same(n):
			s.KubeNodes[i] = c
		}
		// Two different nodes of one hash: the second is only not shared.
	}
}

// hash covers everything same compares.
func (n *KubeNode) hash(seed maphash.Seed) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	h.WriteString(n.Name)
	h.WriteByte(0)
	h.WriteString(n.OS)
	for _, list := range [][]netip.Addr{n.InternalIPs, n.ExternalIPs} {
		h.WriteByte(0)
		for _, a := range list {
			b := a.As16()
			h.Write(b[:])
		}
	}
	h.WriteByte(0)
	for _, p := range n.PodCIDRs {
		b := p.Addr().As16()
		h.Write(b[:])
		h.WriteByte(byte(p.Bits()))
	}
	if n.Ready {
		h.WriteByte(1)
	}
	for _, a := range n.Annotations {
		h.WriteByte(0)
		h.WriteString(a.Key)
		h.WriteByte(0)
		h.WriteString(a.Value)
	}
	return h.Sum64()
}

// same says n and o hold the same node.
func (n *KubeNode) same(o *KubeNode) bool {
	return n.Name == o.Name && n.OS == o.OS && n.Ready == o.Ready &&
		slices.Equal(n.InternalIPs, o.InternalIPs) && slices.Equal(n.ExternalIPs, o.ExternalIPs) &&
		slices.Equal(n.PodCIDRs, o.PodCIDRs) && slices.Equal(n.Annotations, o.Annotations)
}
