package snapshot

import (
	"fmt"
	"sort"
	"strings"
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
type KubeNodeTable struct {
	m map[string]*KubeNode
}

// Share points s's Kubernetes Nodes at the copies already kept.
func (t *KubeNodeTable) Share(s *Snapshot) {
	if t.m == nil {
		t.m = map[string]*KubeNode{}
	}
	for i, n := range s.KubeNodes {
		k := n.key()
		if c, ok := t.m[k]; ok {
			s.KubeNodes[i] = c
		} else {
			t.m[k] = n
		}
	}
}

// key is everything a KubeNode holds, as one string.
func (n *KubeNode) key() string {
	var b strings.Builder
	b.WriteString(n.Name)
	b.WriteByte(0)
	b.WriteString(n.OS)
	fmt.Fprintf(&b, "\x00%v\x00%v\x00%v\x00%v", n.InternalIPs, n.ExternalIPs, n.PodCIDRs, n.Ready)
	keys := make([]string, 0, len(n.Annotations))
	for k := range n.Annotations {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		b.WriteByte(0)
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(n.Annotations[k])
	}
	return b.String()
}
