package snapshot

import (
	"slices"
	"testing"
)

// The index holds each VIP's load balancers in their order, a load
// balancer with two VIPs under both, and is dropped with the node detail.
func TestLoadBalancersByVIP(t *testing.T) {
	a := &LoadBalancer{ID: "a", FrontendVIPs: []string{"10.96.0.10"}}
	b := &LoadBalancer{ID: "b", FrontendVIPs: []string{"10.96.0.10", "10.0.0.4"}}
	c := &LoadBalancer{ID: "c"}
	s := &Snapshot{LoadBalancers: []*LoadBalancer{a, b, c}}
	x := s.LoadBalancersByVIP()
	if !slices.Equal(x["10.96.0.10"], []*LoadBalancer{a, b}) || !slices.Equal(x["10.0.0.4"], []*LoadBalancer{b}) || len(x) != 2 {
		t.Fatalf("index %v", x)
	}
	s.DropNodeDetail()
	if len(s.LoadBalancersByVIP()) != 0 {
		t.Error("the index outlived the load balancers")
	}
}
