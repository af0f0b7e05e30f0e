package snapshot

import (
	"net/netip"
)

// endpointJSON is an Endpoint as JSON, its fields in the order they have
// always had: the network name and policies moved into the detail
// (EndpointDetail) stay where readers of `diag snapshot` find them.
type endpointJSON struct {
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
	*EndpointDetail            // the rest of the detail, after the references
}

// MarshalJSON writes e in endpointJSON's order, HTML escaped or not as the
// caller's encoder says.
func (e Endpoint) MarshalJSON() ([]byte, error) {
	j := endpointJSON{ID: e.ID, Name: e.Name, NetworkID: e.NetworkID, IP: e.IP, MAC: e.MAC, IsRemote: e.IsRemote,
		ProviderAddress: e.ProviderAddress, Refs: e.Refs, EndpointDetail: e.EndpointDetail}
	if d := e.EndpointDetail; d != nil {
		j.NetworkName, j.Policies = d.NetworkName, d.Policies
	}
	return marshalUnescaped(j)
}
