package formats

import (
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"github.com/wincni/diag/bundle"
	"github.com/wincni/diag/snapshot"
)

// The remote endpoints of a list share a handful of details whatever
// their names: V2 gives them none, V1 names them all "Ethernet", other
// tools name each after its address. A detail per endpoint would double
// the model of a large cluster's node.
func TestRemoteEndpointsShareDetailsWhateverTheirNames(t *testing.T) {
	for _, c := range []struct{ shape, object string }{
		{"V2", `{"ID":"%08X-0000-0000-0000-000000000000","Flags":1,"HostComputeNetwork":"N","IpConfigurations":[{"IpAddress":"10.244.%d.%d","PrefixLength":24}],"Policies":[{"Type":"ProviderAddress","Settings":{"ProviderAddress":"10.0.1.4"}}]}`},
		{"V1 Ethernet", `{"ID":"%08X-0000-0000-0000-000000000000","Name":"Ethernet","VirtualNetwork":"N","VirtualNetworkName":"flannel.4096","State":1,"IPAddress":"10.244.%d.%d","PrefixLength":24,"IsRemoteEndpoint":true,"Policies":[{"Type":"PA","PA":"10.0.1.4"}]}`},
		{"named by address", `{"ID":"%08X-0000-0000-0000-000000000000","Name":"remote_10.244.%[2]d.%[3]d","VirtualNetwork":"N","VirtualNetworkName":"flannel.4096","State":1,"IPAddress":"10.244.%[2]d.%[3]d","IsRemoteEndpoint":true,"Policies":[{"Type":"PA","PA":"10.0.1.4"}]}`},
	} {
		details := map[*snapshot.EndpointDetail]bool{}
		for i := range 600 {
			o, err := firstObject(fmt.Appendf(nil, c.object, i, i/250, i%250+2))
			if err != nil {
				t.Fatalf("%s: %v", c.shape, err)
			}
			e := endpointOf(o, snapshot.Ref{})
			d := e.DetailCopy()
			d.NetworkName = "flannel.4096"
			e.SetDetail(&d)
			if !e.IsRemote || !e.ProviderAddress.IsValid() {
				t.Fatalf("%s: not read as a remote endpoint: %+v", c.shape, e)
			}
			details[e.EndpointDetail] = true
		}
		if len(details) > 2 {
			t.Errorf("%s: 600 remote endpoints hold %d details", c.shape, len(details))
		}
	}
}

// A pasted table hides the same fields of every row: the rows share one
// list of them, and the remote endpoints still share their details (a
// list and a detail per row were most of a 30,000-row table's model).
func TestTableRowsShareTheirHiddenFields(t *testing.T) {
	var b strings.Builder
	b.WriteString("PS C:\\> Get-HnsEndpoint | Format-Table ID, IPAddress, IsRemoteEndpoint\n\nID                                   IPAddress     IsRemoteEndpoint\n--                                   ---------     ----------------\n")
	for i := range 300 {
		fmt.Fprintf(&b, "%08x-0000-4000-8000-000000000000 10.244.%d.%-5d True\n", i, i/250+1, i%250+2)
	}
	bu, err := bundle.OpenBytes("table.txt", []byte(b.String()), bundle.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Load(bu)
	if err != nil {
		t.Fatal(err)
	}
	lists, details := map[*string]bool{}, map[*snapshot.EndpointDetail]bool{}
	for _, e := range s.Endpoints {
		if !e.IsRemote || len(e.Unknown) == 0 {
			t.Fatalf("row not read as a remote endpoint with hidden fields: %+v %+v", e, e.EndpointDetail)
		}
		lists[unsafe.SliceData(e.Unknown)] = true
		details[e.EndpointDetail] = true
	}
	if len(s.Endpoints) != 300 || len(lists) != 1 || len(details) > 2 {
		t.Errorf("%d rows hold %d lists of hidden fields and %d details", len(s.Endpoints), len(lists), len(details))
	}
}
