package formats

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/wincni/diag/snapshot"
)

// Load balancers of one list naming the same backend, however it is
// spelled, hold one position in the list's table of backend IDs.
func TestLoadBalancerBackendIDsShared(t *testing.T) {
	var ids snapshot.EndpointIDTable
	var slab lbSlab
	var lbs []*snapshot.LoadBalancer
	for i, js := range []string{
		`{"ID":"A","HostComputeEndpoints":["0DEC644C-DA2D-2156-913A-1734CCB68571","35CE13AD-0EE8-02C7-743D-8CD6C5C101D9"]}`,
		`{"ID":"B","HostComputeEndpoints":["0dec644c-da2d-2156-913a-1734ccb68571"]}`,
		`{"ID":"C","HostComputeEndpoints":["{35CE13AD-0EE8-02C7-743D-8CD6C5C101D9}, 0DEC644C-DA2D-2156-913A-1734CCB68571"]}`,
	} {
		o, err := firstObject([]byte(js))
		if err != nil {
			t.Fatal(err)
		}
		lbs = append(lbs, loadBalancerWith(o, snapshot.Ref{Index: i}, &ids, &slab))
	}
	if ids.Len() != 2 {
		t.Fatalf("the table holds %d IDs, want the 2 distinct ones", ids.Len())
	}
	a, b := lbs[0].EndpointIDs.At(0), lbs[1].EndpointIDs.At(0)
	if a != b || unsafe.StringData(a) != unsafe.StringData(b) {
		t.Errorf("%q and %q are separate copies", a, b)
	}
	want := []string{"35CE13AD-0EE8-02C7-743D-8CD6C5C101D9", "0DEC644C-DA2D-2156-913A-1734CCB68571"}
	if got := idsOf(lbs[2].EndpointIDs); !slices.Equal(got, want) {
		t.Errorf("C's backends are %q, want %q", got, want)
	}
}

// idsOf is the IDs of a list of backends.
func idsOf(b snapshot.EndpointIDs) []string {
	var out []string
	for _, id := range b.All() {
		out = append(out, id)
	}
	return out
}

// A load balancer's backend ID is the very string of the endpoint it names,
// once both lists are loaded (shareEndpointIDs); IDs no endpoint has keep
// their own.
func TestBackendIDsShareEndpointIDs(t *testing.T) {
	ep, err := firstObject([]byte(`{"ID":"0dec644c-da2d-2156-913a-1734ccb68571","Flags":1}`))
	if err != nil {
		t.Fatal(err)
	}
	lb, err := firstObject([]byte(`{"ID":"A","HostComputeEndpoints":["0DEC644C-DA2D-2156-913A-1734CCB68571","35CE13AD-0EE8-02C7-743D-8CD6C5C101D9"]}`))
	if err != nil {
		t.Fatal(err)
	}
	eps := []*snapshot.Endpoint{endpointOf(ep, snapshot.Ref{})}
	lbs := []*snapshot.LoadBalancer{loadBalancerOf(lb, snapshot.Ref{})}
	shareEndpointIDs(&snapshot.Snapshot{Endpoints: eps, LoadBalancers: lbs})
	got := lbs[0].EndpointIDs
	if got.At(0) != eps[0].ID || unsafe.StringData(got.At(0)) != unsafe.StringData(eps[0].ID) {
		t.Errorf("backend %q is not the endpoint's ID string %q", got.At(0), eps[0].ID)
	}
	if got.At(1) != "35CE13AD-0EE8-02C7-743D-8CD6C5C101D9" {
		t.Errorf("an ID no endpoint has changed: %q", got.At(1))
	}
}

// A remote endpoint holding only its ProviderAddress shares the empty
// detail and one policy list; a local one with DNS and a gateway keeps its
// own detail, and writing through Detail leaves the shared one alone.
func TestEndpointDetailShared(t *testing.T) {
	parse := func(js string) *snapshot.Endpoint {
		o, err := firstObject([]byte(js))
		if err != nil {
			t.Fatal(err)
		}
		return endpointOf(o, snapshot.Ref{})
	}
	const remote = `{"ID":"%s","Flags":1,"IpConfigurations":[{"IpAddress":"10.244.2.5"}],"Policies":[{"Type":"ProviderAddress","Settings":{"ProviderAddress":"10.0.0.12"}}]}`
	a, b := parse(fmt.Sprintf(remote, "A")), parse(fmt.Sprintf(remote, "B"))
	if a.EndpointDetail != b.EndpointDetail {
		t.Error("two remote endpoints without detail hold separate empty details")
	}
	if &a.Policies[0] != &b.Policies[0] || a.Policies[0].Kind() != "ProviderAddress" || a.ProviderAddress.String() != "10.0.0.12" {
		t.Errorf("the ProviderAddress-only policy lists are not shared: %+v %+v", a.Policies, b.Policies)
	}
	local := parse(`{"ID":"C","IpConfigurations":[{"IpAddress":"10.244.1.5","PrefixLength":24}],"Dns":{"ServerList":["10.96.0.10"]}}`)
	if local.EndpointDetail == a.EndpointDetail || local.PrefixLength != 24 || len(local.DNSServers) != 1 {
		t.Errorf("a local endpoint lost its detail: %+v", local.EndpointDetail)
	}
	a.Detail().VFPPortID = "port"
	if b.VFPPortID != "" || a.VFPPortID != "port" || !snapshot.SharedDetailIntact() {
		t.Errorf("Detail wrote the shared detail: a=%q b=%q", a.VFPPortID, b.VFPPortID)
	}
}

func TestStrArenaCopiesIntoSharedBlocks(t *testing.T) {
	var a strArena
	var got []string
	for i := range 2000 {
		s := fmt.Sprintf("%08X-0000-0000-0000-%012d", i, i)
		k := a.keep(s)
		if k != s {
			t.Fatalf("keep(%q) = %q", s, k)
		}
		got = append(got, k)
	}
	for i, k := range got { // later blocks left the earlier strings as they were
		if want := fmt.Sprintf("%08X-0000-0000-0000-%012d", i, i); k != want {
			t.Fatalf("string %d became %q, want %q", i, k, want)
		}
	}
	long := strings.Repeat("x", strArenaBlock)
	if k := a.keep(long); unsafe.StringData(k) != unsafe.StringData(long) {
		t.Error("a string longer than the arena takes was copied")
	}
	if a.keep("") != "" {
		t.Error("the empty string is not kept as empty")
	}
}

func TestSlabListsCopyOnAppend(t *testing.T) {
	var lbs lbSlab
	a := lbs.strings(obj{"k": []any{"a", "b"}}, "k", true)
	b := lbs.strings(obj{"k": []any{"c"}}, "k", false)
	_ = append(a, "x")
	if b[0] != "c" || cap(a) != len(a) {
		t.Errorf("appending to one list wrote into the next: %q (cap %d)", b, cap(a))
	}
	// A list whose values split in more than it has (stringsOf) is still
	// read whole, and the next list starts after the last one kept.
	c := lbs.strings(obj{"k": []any{"d,e,f"}}, "k", false)
	d := lbs.strings(obj{"k": []any{"g"}}, "k", false)
	if len(c) != 3 || c[2] != "f" || d[0] != "g" || b[0] != "c" {
		t.Errorf("split list %q, next %q, earlier %q", c, d, b)
	}
	var svcs serviceSlab
	p := svcs.ports([]snapshot.ServicePort{{Port: 53}})
	q := svcs.ports([]snapshot.ServicePort{{Port: 80}})
	_ = append(p, snapshot.ServicePort{Port: 1})
	if q[0].Port != 80 {
		t.Errorf("appending to one port list wrote into the next: %+v", q)
	}
	var none *lbSlab
	if v := none.strings(obj{"k": "a"}, "k", true); len(v) != 1 || v[0] != "a" {
		t.Errorf("no slab: %q", v)
	}
}

// A string set answers with the first copy of each string.
func TestStringSetKeepsFirstCopy(t *testing.T) {
	var set stringSet
	a := strings.Clone("4f0b5a43-2c1e-4c36-9b1a-6e2b8d1c0a11")
	if set.get(a) != a {
		t.Fatal("first get changed the string")
	}
	if got := set.get(strings.Clone(a)); got != a || unsafe.StringData(got) != unsafe.StringData(a) {
		t.Errorf("a second copy of %q was kept", a)
	}
	if set.get("") != "" || len(set) != 1 {
		t.Errorf("the empty string was kept: %d strings", len(set))
	}
}
