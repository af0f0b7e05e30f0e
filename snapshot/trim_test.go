package snapshot

import (
	"net/netip"
	"testing"
)

func node(name, backend string) *KubeNode {
	return &KubeNode{Name: name, OS: "linux", Ready: true, InternalIPs: []netip.Addr{netip.MustParseAddr("10.0.0.4")},
		Annotations: SortedPairs(Pair{AnnotationFlannelBackendData, backend}, Pair{"other", "x"})}
}

// Nodes alike in two inputs are kept once; a node that differs in anything
// keeps its own.
func TestKubeNodeTableShares(t *testing.T) {
	a := &Snapshot{KubeNodes: []*KubeNode{node("n1", `{"VtepMAC":"aa"}`), node("n2", `{"VtepMAC":"bb"}`)}}
	b := &Snapshot{KubeNodes: []*KubeNode{node("n1", `{"VtepMAC":"aa"}`), node("n2", `{"VtepMAC":"cc"}`)}}
	var tab KubeNodeTable
	tab.Share(a)
	tab.Share(b)
	if a.KubeNodes[0] != b.KubeNodes[0] {
		t.Error("the same node is kept twice")
	}
	if a.KubeNodes[1] == b.KubeNodes[1] || b.KubeNodes[1].Annotations.Get(AnnotationFlannelBackendData) != `{"VtepMAC":"cc"}` {
		t.Error("a node whose VtepMAC changed was taken for the other")
	}
	c := &Snapshot{KubeNodes: []*KubeNode{node("n1", `{"VtepMAC":"aa"}`)}}
	c.KubeNodes[0].Ready = false
	tab.Share(c)
	if c.KubeNodes[0] == a.KubeNodes[0] {
		t.Error("a NotReady node was taken for the Ready one")
	}
	d := &Snapshot{KubeNodes: []*KubeNode{node("n1", `{"VtepMAC":"aa"}`), node("n1", `{"VtepMAC":"aa"}`), node("n1", `{"VtepMAC":"aa"}`)}}
	d.KubeNodes[0].PodCIDRs = []netip.Prefix{netip.MustParsePrefix("10.244.1.0/24")}
	d.KubeNodes[1].Annotations = SortedPairs(append(d.KubeNodes[1].Annotations, Pair{"another", ""})...)
	d.KubeNodes[2].ExternalIPs = d.KubeNodes[2].InternalIPs
	tab.Share(d)
	for i, n := range d.KubeNodes {
		if n == a.KubeNodes[0] {
			t.Errorf("node %d, which differs from n1 in one field, was taken for it", i)
		}
	}
}
