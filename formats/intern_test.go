package formats

import (
	"testing"
	"unsafe"

	"github.com/wincni/diag/snapshot"
)

// Load balancers naming the same backend share one copy of its ID.
func TestLoadBalancerBackendIDsShared(t *testing.T) {
	var ids guids
	build := ids.loadBalancers(loadBalancerOf)
	var lbs []*snapshot.LoadBalancer
	for i, js := range []string{
		`{"ID":"A","HostComputeEndpoints":["0DEC644C-DA2D-2156-913A-1734CCB68571","35CE13AD-0EE8-02C7-743D-8CD6C5C101D9"]}`,
		`{"ID":"B","HostComputeEndpoints":["0dec644c-da2d-2156-913a-1734ccb68571"]}`,
	} {
		o, err := firstObject([]byte(js))
		if err != nil {
			t.Fatal(err)
		}
		lbs = append(lbs, build(o, snapshot.Ref{Index: i}))
	}
	a, b := lbs[0].EndpointIDs[0], lbs[1].EndpointIDs[0]
	if a != b || unsafe.StringData(a) != unsafe.StringData(b) {
		t.Errorf("%q and %q are separate copies", a, b)
	}
}
