package snapshot

import (
	"net/netip"
	"testing"
)

// endpointAsDeclared is Endpoint as it was declared before its name,
// network name, policies and unknown fields moved into EndpointDetail: the
// JSON of a snapshot must not change with the moves.
type endpointAsDeclared struct {
	ID              string     `json:"id,omitempty"`
	Name            string     `json:"name,omitempty"`
	NetworkID       string     `json:"networkID,omitempty"`
	NetworkName     string     `json:"networkName,omitempty"`
	IP              netip.Addr `json:"ip,omitzero"`
	MAC             string     `json:"mac,omitempty"`
	IsRemote        bool       `json:"isRemote"`
	ProviderAddress netip.Addr `json:"providerAddress,omitzero"`
	Policies        []Policy   `json:"policies,omitempty"`
	Refs            []Ref      `json:"refs,omitempty"`
	Unknown         []string   `json:"unknown,omitempty"`
	IPv6            netip.Addr `json:"ipv6,omitzero"`
	PrefixLength    int        `json:"prefixLength,omitempty"`
	State           int64      `json:"state,omitempty"`
	NamespaceID     string     `json:"namespaceID,omitempty"`
}

func TestEndpointJSONKeepsTheFieldOrder(t *testing.T) {
	ip, pa := netip.MustParseAddr("10.244.1.5"), netip.MustParseAddr("10.0.0.5")
	for _, unknown := range [][]string{nil, {"Extra", "Other"}} {
		for _, name := range []string{"", "pod_eth0", "<b>&amp;</b> \u2028", "bad \xff utf-8"} {
			e := &Endpoint{ID: "A", Name: name, NetworkID: "N", IP: ip, MAC: "00:15:5d:00:00:01", ProviderAddress: pa, Refs: []Ref{{File: "hns/v2/endpoints.json", Index: 3}}}
			e.SetDetail(&EndpointDetail{NetworkName: "vxlan0", Policies: []Policy{{Type: "ProviderAddress"}},
				Unknown: unknown, IPv6: netip.MustParseAddr("fd00::5"), PrefixLength: 24, State: 3, NamespaceID: "NS"})
			old := endpointAsDeclared{ID: e.ID, Name: name, NetworkID: e.NetworkID, NetworkName: "vxlan0", IP: ip, MAC: e.MAC, ProviderAddress: pa,
				Policies: e.Policies, Refs: e.Refs, Unknown: unknown, IPv6: e.IPv6, PrefixLength: 24, State: 3, NamespaceID: "NS"}
			for _, escape := range []bool{true, false} {
				got, want := encodeJSON(t, []*Endpoint{e}, escape, ""), encodeJSON(t, []endpointAsDeclared{old}, escape, "")
				if got != want {
					t.Errorf("endpoint JSON (escape HTML %v)\n got %s\nwant %s", escape, got, want)
				}
			}
		}
	}
	bare := &Endpoint{ID: "B", IsRemote: true}
	if got, want := encodeJSON(t, bare, true, ""), encodeJSON(t, endpointAsDeclared{ID: "B", IsRemote: true}, true, ""); got != want {
		t.Errorf("endpoint without a detail\n got %s\nwant %s", got, want)
	}
}

// The remote endpoints of a list share one detail, and naming their
// network (DetailCopy, SetDetail) keeps them sharing one.
func TestEndpointsShareTheirNetworkName(t *testing.T) {
	paOnly, _ := ProviderAddressOnly("ProviderAddress")
	eps := make([]*Endpoint, 3)
	for i := range eps {
		eps[i] = &Endpoint{IsRemote: true}
		eps[i].SetDetail(&EndpointDetail{Policies: paOnly})
	}
	if eps[0].EndpointDetail != eps[1].EndpointDetail {
		t.Fatal("two remote endpoints with one policy list do not share a detail")
	}
	for _, e := range eps[:2] {
		d := e.DetailCopy()
		d.NetworkName = "vxlan0"
		e.SetDetail(&d)
	}
	if eps[0].EndpointDetail != eps[1].EndpointDetail || eps[0].NetworkName != "vxlan0" {
		t.Errorf("named endpoints: details %p %p, name %q", eps[0].EndpointDetail, eps[1].EndpointDetail, eps[0].NetworkName)
	}
	if eps[2].NetworkName != "" || len(eps[2].Policies) != 1 {
		t.Errorf("naming two endpoints' network named the third's: %q", eps[2].NetworkName)
	}
	for _, d := range []EndpointDetail{{Policies: []Policy{{Type: "ProviderAddress"}}}} {
		a, b := &Endpoint{}, &Endpoint{}
		a.SetDetail(&d)
		b.SetDetail(&d)
		if a.EndpointDetail == b.EndpointDetail {
			t.Errorf("detail %+v is shared: policy lists of an endpoint's own would fill the shared ones", d)
		}
	}
	// A copy of an endpoint holds the original's own detail; naming the
	// copy's network leaves the original's alone.
	own := &Endpoint{}
	own.SetDetail(&EndpointDetail{Unknown: []string{"Extra"}})
	copied := *own
	od := copied.DetailCopy()
	od.NetworkName = "cbr0"
	copied.SetDetail(&od)
	if copied.NetworkName != "cbr0" || own.NetworkName != "" || copied.Unknown[0] != "Extra" {
		t.Errorf("named the copy's network: copy %q, original %q", copied.NetworkName, own.NetworkName)
	}
	if !SharedDetailIntact() {
		t.Error("a shared detail was written")
	}
}

// A detail with unknown fields is the endpoint's own: only details of
// numbers alone are shared.
func TestEndpointDetailWithUnknownIsNotShared(t *testing.T) {
	a, b := &Endpoint{}, &Endpoint{}
	a.SetDetail(&EndpointDetail{Unknown: []string{"Extra"}, State: 3})
	b.SetDetail(&EndpointDetail{Unknown: []string{"Other"}, State: 3})
	if a.EndpointDetail == b.EndpointDetail || a.Unknown[0] != "Extra" || b.Unknown[0] != "Other" {
		t.Errorf("details %p %p: %v %v", a.EndpointDetail, b.EndpointDetail, a.Unknown, b.Unknown)
	}
	if !a.Knows("State") || a.Knows("Extra") {
		t.Error("Knows does not read the unknown fields")
	}
}
