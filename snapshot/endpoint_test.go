package snapshot

import (
	"encoding/json"
	"net/netip"
	"testing"
)

// endpointAsDeclared is Endpoint with Unknown among its own fields, as it
// was declared before it moved to the head of EndpointDetail: the JSON of
// a snapshot must not change with the move.
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
		e := &Endpoint{ID: "A", Name: "pod_eth0", NetworkID: "N", NetworkName: "vxlan0", IP: ip, MAC: "00:15:5d:00:00:01", ProviderAddress: pa,
			Policies: []Policy{{Type: "ProviderAddress"}}, Refs: []Ref{{File: "hns/v2/endpoints.json", Index: 3}}}
		e.SetDetail(&EndpointDetail{Unknown: unknown, IPv6: netip.MustParseAddr("fd00::5"), PrefixLength: 24, State: 3, NamespaceID: "NS"})
		old := endpointAsDeclared{ID: e.ID, Name: e.Name, NetworkID: e.NetworkID, NetworkName: e.NetworkName, IP: ip, MAC: e.MAC, ProviderAddress: pa,
			Policies: e.Policies, Refs: e.Refs, Unknown: unknown, IPv6: e.IPv6, PrefixLength: 24, State: 3, NamespaceID: "NS"}
		got, _ := json.Marshal(e)
		want, _ := json.Marshal(old)
		if string(got) != string(want) {
			t.Errorf("endpoint JSON\n got %s\nwant %s", got, want)
		}
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
