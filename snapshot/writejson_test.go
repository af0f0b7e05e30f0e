package snapshot

import (
	"bytes"
	"net/netip"
	"testing"
)

func TestWriteJSONIsTheEncodersDocument(t *testing.T) {
	ep := &Endpoint{ID: "A", Name: "<pod> & \u2028", IP: netip.MustParseAddr("10.244.1.5"), Refs: []Ref{{File: "hns/v2/endpoints.json"}}}
	ep.SetDetail(&EndpointDetail{NetworkName: "vxlan0", Policies: []Policy{{Type: "OutBoundNAT", Settings: map[string]any{"Exceptions": []any{"10.0.0.0/8"}, "Nested": map[string]any{}}}}})
	for _, s := range []*Snapshot{
		{},
		{Source: "b.zip", Notes: []string{"a", "b <c>"}, Unjudged: "no HNS state"},
		{Endpoints: []*Endpoint{ep, {ID: "B", IsRemote: true}}, Services: []*Service{}, Inputs: map[Input]string{InputHNSEndpoints: "hns/v2/endpoints.json"},
			KubeNodes: []*KubeNode{{Name: "n1", Annotations: SortedPairs(Pair{"k", "v"})}, nil}, HNSDiag: []HNSDiagObject{{}},
			OS: &OSInfo{}, Linux: &LinuxNet{}},
	} {
		var b bytes.Buffer
		if err := s.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		if got, want := b.String(), encodeJSON(t, s, false, "  "); got != want {
			t.Errorf("WriteJSON\n%s\nthe encoder\n%s", got, want)
		}
	}
}
