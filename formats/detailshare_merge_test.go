package formats

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wincni/diag/snapshot"
)

// A bundle of diag collect holds each endpoint twice, hns/v2 and hns/v1:
// the remote endpoints that V1 gives a State still share a handful of
// details once merged, as the V2 ones alone do.
func TestMergedRemoteEndpointsShareDetails(t *testing.T) {
	const n = 600
	var v2, v1 []string
	for i := range n {
		id := fmt.Sprintf("%08X-0000-4000-8000-000000000000", i)
		ip := fmt.Sprintf("10.244.%d.%d", i/250, i%250+2)
		v2 = append(v2, fmt.Sprintf(`{"ID":%q,"Flags":1,"HostComputeNetwork":"N","IpConfigurations":[{"IpAddress":%q}],"Policies":[{"Type":"ProviderAddress","Settings":{"ProviderAddress":"10.0.1.4"}}]}`, id, ip))
		v1 = append(v1, fmt.Sprintf(`{"ID":%q,"Name":"Ethernet","VirtualNetwork":"N","VirtualNetworkName":"vxlan0","State":1,"IPAddress":%q,"IsRemoteEndpoint":true,"Policies":[{"Type":"PA","PA":"10.0.1.4"}]}`, strings.ToLower(id), ip))
	}
	v2eps, err := ParseEndpoints([]byte("["+strings.Join(v2, ",")+"]"), snapshot.FileV2Endpoints)
	if err != nil {
		t.Fatal(err)
	}
	v1eps, err := ParseEndpoints([]byte("["+strings.Join(v1, ",")+"]"), snapshot.FileV1Endpoints)
	if err != nil {
		t.Fatal(err)
	}
	details := map[*snapshot.EndpointDetail]bool{}
	for _, e := range mergeEndpoints(v2eps, v1eps) {
		if !e.IsRemote || e.State != 1 || e.NetworkName != "vxlan0" {
			t.Fatalf("not merged as a remote endpoint of vxlan0 in State 1: %+v %+v", e, e.EndpointDetail)
		}
		details[e.EndpointDetail] = true
	}
	if len(details) > 2 {
		t.Errorf("%d merged remote endpoints hold %d details", n, len(details))
	}
}
