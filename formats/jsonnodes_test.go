package formats

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/wincni/diag/snapshot"
)

// compareReuse: a list read as the loader reads it (its elements' trees
// read into again, streamOptions.reuse; members left raw, the load
// balancers' backends and the endpoints' IDs and MACs; the endpoints,
// load balancers and Services taken from their slabs) builds exactly what
// reading each into new maps builds, for every builder that reuses.
func compareReuse(t *testing.T, data []byte) {
	t.Helper()
	ref := func(i int) snapshot.Ref { return snapshot.Ref{File: "f.json", Index: i} }
	var slab endpointSlab
	sameList(t, data, "endpoints",
		func(o obj, i int) *snapshot.Endpoint { return endpointOf(o, ref(i)) },
		func(o obj, i int) *snapshot.Endpoint { return endpointWith(o, ref(i), &slab) },
		streamOptions[snapshot.Endpoint]{reuse: keepsNoTree, raw: []string{"ID", "MacAddress"}, rawIn: endpointRawIn})
	var backends snapshot.EndpointIDTable
	var lbs lbSlab
	// The list's table and each load balancer's own hold the same IDs:
	// compared as lists, each in a table of its own.
	ownTable := func(lb *snapshot.LoadBalancer) *snapshot.LoadBalancer {
		lb.EndpointIDs = snapshot.NewEndpointIDs(idsOf(lb.EndpointIDs)...)
		return lb
	}
	sameList(t, data, "load balancers",
		func(o obj, i int) *snapshot.LoadBalancer { return ownTable(loadBalancerOf(o, ref(i))) },
		func(o obj, i int) *snapshot.LoadBalancer {
			return ownTable(loadBalancerWith(o, ref(i), &backends, &lbs))
		},
		streamOptions[snapshot.LoadBalancer]{reuse: func(*snapshot.LoadBalancer) bool { return true }, raw: []string{"ID", "HostComputeEndpoints"}})
	always := func(*snapshot.KubeNode) bool { return true }
	sameList(t, data, "nodes", func(o obj, _ int) *snapshot.KubeNode { return kubeNodeOf(o) }, func(o obj, _ int) *snapshot.KubeNode { return kubeNodeOf(o) },
		streamOptions[snapshot.KubeNode]{reuse: always})
	var svcs serviceSlab
	sameList(t, data, "services", func(o obj, _ int) *snapshot.Service { return serviceOf(o) }, func(o obj, _ int) *snapshot.Service { return serviceWith(o, &svcs) },
		streamOptions[snapshot.Service]{reuse: func(*snapshot.Service) bool { return true }})
}

func sameList[T any](t *testing.T, data []byte, what string, plain, reusing func(obj, int) *T, opt streamOptions[T]) {
	t.Helper()
	want, werr := parseEachReader(bytes.NewReader(data), plain)
	got, gerr := parseEachReaderWith(bytes.NewReader(data), reusing, opt)
	if (werr != nil) != (gerr != nil) {
		t.Fatalf("%s of %.200q: error %v with reuse, %v without", what, data, gerr, werr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s of %.200q differ with reuse", what, data)
	}
}

var reuseSeeds = []string{
	`[{"ID":"BDD640FB-0667-1AD1-1C80-317FA3B1799D","HostComputeNetwork":"4f0b5a43-2c1e-4c36-9b1a-6e2b8d1c0a11","Flags":1,"Policies":[{"Type":"ProviderAddress","Settings":{"ProviderAddress":"10.0.1.10"}}],"IpConfigurations":[{"IpAddress":"10.128.0.2"}],"MacAddress":"00-15-5D-5A-11-02"},` +
		`{"ID":"23B8C1E9-3924-56DE-3EB1-3B9046685257","Name":"pod3","Policies":[{"Type":"OutBoundNAT","Settings":{"Exceptions":["10.96.0.0/12"]}},{"Type":"ProviderAddress","Settings":{"ProviderAddress":"10.0.1.10"}}],"Dns":{"Search":["a","b"],"ServerList":["10.96.0.10"]}},` +
		`{"ID":"625C6B64-5C02-ECD8-F83A-35229C5879DA","Flags":1,"Policies":[{"Type":"ProviderAddress","Settings":{"ProviderAddress":"10.0.12.10"}}],"IpConfigurations":[{"IpAddress":"10.128.11.202"}]}]`,
	`[{"ID":"15BEDDDF-19AF-378C-D73D-C8B3DD25CC30","HostComputeEndpoints":["4CA5C01B-C6D2-D383-C900-17AA0C0F60CF","4ca5c01b-c6d2-d383-c900-17aa0c0f60cf","{24E1ED79-7D99-E386-B77C-1BE6FEBEE6A6}"," 24E1ED79-7D99-E386-B77C-1BE6FEBEE6A6","\u0034CA5C01B-C6D2-D383-C900-17AA0C0F60CF"],"SourceVIP":"10.128.0.2","FrontendVIPs":["10.96.0.10"],"PortMappings":[{"Protocol":17,"InternalPort":53,"ExternalPort":53}]},` +
		`{"ID":"6F5C78FB-B8E5-E68D-8365-EDA8B7E4DB2E","HostComputeEndpoints":["4CA5C01B-C6D2-D383-C900-17AA0C0F60CF"],"PortMappings":[{"Protocol":"TCP","InternalPort":"80"},{"Protocol":6}]}]`,
	`{"kind":"List","items":[{"metadata":{"name":"win-1","annotations":{"a":"b"}},"spec":{"podCIDRs":["10.128.0.0/24"]}},{"metadata":{"name":"svc","namespace":"default"},"spec":{"clusterIP":"10.96.0.1","ports":[{"port":443,"targetPort":6443}]}}],"metadata":{"x":[1,{"y":2}]}}`,
	`[{"ID":"A","HostComputeEndpoints":["4CA5C01B-C6D2-D383-C900-17AA0C0F60CF, 24E1ED79-7D99-E386-B77C-1BE6FEBEE6A6",""],"FrontendVIPs":[]},{"ID":"B","HostComputeEndpoints":[""," "],"FrontendVIPs":["10.96.0.1,10.96.0.2"," "]},{"ID":"C","HostComputeEndpoints":"4CA5C01B-C6D2-D383-C900-17AA0C0F60CF","PortMappings":[]}]`,
	`{"kind":"List","items":[{"metadata":{"name":"a","namespace":"n"},"spec":{"clusterIPs":[],"clusterIP":"10.96.0.3","ports":[]}},{"metadata":{"name":"b"},"spec":{"clusterIPs":["10.96.0.4","fd00::4"],"ports":[{"name":"x","protocol":"UDP","port":53,"nodePort":30053}]}}]}`,
	`[[1,[2,{"a":[3]}]],{"a":{"b":{"c":[{"d":1},{"d":2}]}}},{"a":[]},{"a":{}},7,"s",null]`,
	`[{"Policies":"@{Type=ProviderAddress; ProviderAddress=10.0.0.1}"},{"Policies":[{"Type":"PA","PA":"10.0.0.2"}],"IsRemoteEndpoint":true}]`,
	`{"Success":true,"Output":[{"ID":"a","Policies":[{"Type":"ProviderAddress","Settings":{"ProviderAddress":"10.0.0.3"}}],"Flags":1},{"ID":"b"}]}`,
}

func TestReuseSame(t *testing.T) {
	for _, s := range reuseSeeds {
		compareReuse(t, []byte(s))
	}
	// The repository's HNS and Kubernetes lists.
	files, _ := filepath.Glob("../analyzers/testdata/scenarios/*/hns/v2/*.json")
	more, _ := filepath.Glob("../analyzers/testdata/scenarios/*/k8s/*.json")
	files = append(append(files, more...), "testdata/v2-endpoints.json")
	if len(files) < 10 {
		t.Fatalf("only %d list files found", len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		compareReuse(t, data)
	}
}

func FuzzReuseSame(f *testing.F) {
	for _, s := range reuseSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { compareReuse(t, data) })
}
