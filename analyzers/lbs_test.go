package analyzers

import (
	"strings"
	"testing"

	"github.com/wincni/diag/snapshot"
)

// A load balancer without port mappings cannot come from the fixtures'
// V1 policy lists (an ELB policy always has ports), so it is built here.
func TestLoadBalancerWithoutPortMappings(t *testing.T) {
	s := &snapshot.Snapshot{
		Inputs: map[snapshot.Input]string{snapshot.InputHNSLoadBalancers: "hns/v2/loadbalancers.json", snapshot.InputHNSEndpoints: "hns/v2/endpoints.json"},
		LoadBalancers: []*snapshot.LoadBalancer{
			{ID: "A", FrontendVIPs: []string{"10.96.0.20"}, Ref: snapshot.Ref{File: "hns/v2/loadbalancers.json"}},
			{ID: "B", FrontendVIPs: []string{"10.96.0.21"}, PortMappings: []snapshot.PortMapping{{Protocol: 6, ExternalPort: 80}}, Unknown: nil},
		},
	}
	issues, err := checkStaleLoadBalancers(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(issues) != 1 || !strings.Contains(issues[0].Summary, "A (10.96.0.20) has no port mappings") {
		t.Fatalf("got %+v", issues)
	}
	// Hidden by Format-List: not known to be empty, so not reported.
	s.LoadBalancers[0].Unknown = []string{"PortMappings"}
	if issues, _ := checkStaleLoadBalancers(s); len(issues) != 0 {
		t.Fatalf("hidden PortMappings reported: %+v", issues)
	}
}
