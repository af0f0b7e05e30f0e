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

// The endpoints' index is kept while the list is the same and made again
// for a list grown or replaced since.
func TestEndpointsByIDFollowsTheList(t *testing.T) {
	a, b := &Endpoint{ID: "A"}, &Endpoint{ID: "B"}
	s := &Snapshot{Endpoints: make([]*Endpoint, 1, 4)}
	s.Endpoints[0] = a
	x := s.EndpointsByID()
	if x.Get("A") != a || s.EndpointsByID() != x {
		t.Fatal("the index is not kept")
	}
	s.Endpoints = append(s.Endpoints, b) // the same array, longer
	if s.EndpointsByID().Get("B") != b {
		t.Error("a grown list kept its old index")
	}
	s.Endpoints = []*Endpoint{b}
	if s.EndpointsByID().Get("A") != nil {
		t.Error("a replaced list kept its old index")
	}
	s.LoadBalancers = []*LoadBalancer{{FrontendVIPs: []string{"10.96.0.1"}}}
	s.LoadBalancersByVIP()
	s.LoadBalancers = append(s.LoadBalancers, &LoadBalancer{FrontendVIPs: []string{"10.96.0.2"}})
	if len(s.LoadBalancersByVIP()["10.96.0.2"]) != 1 {
		t.Error("a grown list of load balancers kept its old index")
	}
}
