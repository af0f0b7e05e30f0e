package snapshot

import (
	"net/netip"
	"strings"
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

// ParseCalicoIPAMConfigs reads the IPAMConfig list: the strict affinity of
// the "default" one.
func ParseCalicoIPAMConfigs(data []byte) (*bool, error) {
	v, err := parseJSON(data)
	if err != nil {
		return nil, err
	}
	for _, o := range objects(v) {
		if name := o.child("metadata").str("name"); name != "" && name != "default" {
			continue
		}
		if strict, ok := o.child("spec").boolean("strictAffinity"); ok {
			return &strict, nil
		}
		f := false // an IPAMConfig without the field: the default, false
		return &f, nil
	}
	return nil, nil
}

// ParseCalicoBlockAffinities reads the BlockAffinity list.
func ParseCalicoBlockAffinities(data []byte) ([]CalicoAffinity, error) {
	list, err := parseEach(data, func(o obj, _ int) *CalicoAffinity {
		spec := o.child("spec")
		if deleted, _ := spec.boolean("deleted"); deleted {
			return nil
		}
		a := &CalicoAffinity{Node: spec.str("node"), CIDR: parsePrefix(spec.str("cidr")), State: spec.str("state")}
		if a.Node == "" || !a.CIDR.IsValid() {
			return nil
		}
		return a
	})
	out := make([]CalicoAffinity, len(list))
	for i, a := range list {
		out[i] = *a
	}
	return out, err
}

// ParseCalicoIPAMBlocks reads the IPAMBlock list: each block's affinity,
// how many addresses are allocated, and to pods of which nodes.
func ParseCalicoIPAMBlocks(data []byte) ([]*CalicoBlock, error) {
	return parseEach(data, func(o obj, _ int) *CalicoBlock { return calicoBlockOf(o) })
}

func calicoBlockOf(o obj) *CalicoBlock {
	spec := o.child("spec")
	b := &CalicoBlock{CIDR: parsePrefix(spec.str("cidr")), PodNodes: map[string]int{}}
	if !b.CIDR.IsValid() {
		return nil
	}
	if node, ok := strings.CutPrefix(spec.str("affinity"), "host:"); ok {
		b.Node = node
	}
	attrs := spec.list("attributes")
	v, _ := spec.first("allocations")
	allocs, _ := v.([]any)
	for _, a := range allocs {
		i, ok := asInt(a)
		if !ok {
			continue // null: free
		}
		b.Allocated++
		if i < 0 || int(i) >= len(attrs) {
			continue
		}
		if node := attrs[i].child("secondary").str("node"); node != "" {
			b.PodNodes[node]++
		}
	}
	return b
}
