package formats

import (
	"strings"

	"github.com/wincni/diag/snapshot"
)

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
func ParseCalicoBlockAffinities(data []byte) ([]snapshot.CalicoAffinity, error) {
	list, err := parseEach(data, func(o obj, _ int) *snapshot.CalicoAffinity {
		spec := o.child("spec")
		if deleted, _ := spec.boolean("deleted"); deleted {
			return nil
		}
		a := &snapshot.CalicoAffinity{Node: spec.str("node"), CIDR: snapshot.ParsePrefix(spec.str("cidr")), State: spec.str("state")}
		if a.Node == "" || !a.CIDR.IsValid() {
			return nil
		}
		return a
	})
	out := make([]snapshot.CalicoAffinity, len(list))
	for i, a := range list {
		out[i] = *a
	}
	return out, err
}

// ParseCalicoIPAMBlocks reads the IPAMBlock list: each block's affinity,
// how many addresses are allocated, and to pods of which nodes.
func ParseCalicoIPAMBlocks(data []byte) ([]*snapshot.CalicoBlock, error) {
	return parseEach(data, func(o obj, _ int) *snapshot.CalicoBlock { return calicoBlockOf(o) })
}

func calicoBlockOf(o obj) *snapshot.CalicoBlock {
	spec := o.child("spec")
	b := &snapshot.CalicoBlock{CIDR: snapshot.ParsePrefix(spec.str("cidr")), PodNodes: map[string]int{}}
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
