package snapshot

import (
	"net/netip"
)

// CalicoIPAM is Calico's IPAM state from its custom resources (Kubernetes
// datastore): k8s/calico-ipamconfigs.json, k8s/calico-blockaffinities.json
// and k8s/calico-ipamblocks.json, as kubectl get -o json lists them.
type CalicoIPAM struct {
	// StrictAffinity is the default IPAMConfig's; nil when the cluster has
	// no IPAMConfig, which means false.
	StrictAffinity *bool            `json:"strictAffinity,omitempty"`
	ConfigFile     string           `json:"configFile,omitempty"`
	Blocks         []*CalicoBlock   `json:"blocks,omitempty"`
	Affinities     []CalicoAffinity `json:"affinities,omitempty"`
}

// CalicoBlock is an IPAM block with who its addresses went to.
type CalicoBlock struct {
	CIDR      netip.Prefix `json:"cidr"`
	Node      string       `json:"node,omitempty"` // from affinity "host:<node>"
	Allocated int          `json:"allocated"`
	// PodNodes counts the allocations per node of the pod they went to
	// (the allocation's attributes); a node other than Node borrowed it.
	PodNodes map[string]int `json:"podNodes,omitempty"`
}

// Size is the number of addresses in the block.
func (b *CalicoBlock) Size() int {
	bits := b.CIDR.Addr().BitLen() - b.CIDR.Bits()
	if bits >= 31 {
		return 1 << 30
	}
	return 1 << bits
}

// CalicoAffinity binds a block to a node.
type CalicoAffinity struct {
	Node  string       `json:"node"`
	CIDR  netip.Prefix `json:"cidr"`
	State string       `json:"state,omitempty"`
}
