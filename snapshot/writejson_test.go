package snapshot

import (
	"bytes"
	"encoding/json"
	"net/netip"
	"testing"
)

// encoded is s as diag snapshot wrote it before WriteJSON: the whole
// document through one encoder.
func encoded(t *testing.T, s *Snapshot) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestWriteJSONIsTheEncodersDocument(t *testing.T) {
	ep := &Endpoint{ID: "A", Name: "<pod> & \u2028", IP: netip.MustParseAddr("10.244.1.5"), Refs: []Ref{{File: "hns/v2/endpoints.json"}}}
	ep.SetDetail(&EndpointDetail{NetworkName: "vxlan0", Policies: []Policy{{Type: "OutBoundNAT", Settings: map[string]any{"Exceptions": []any{"10.0.0.0/8"}, "Nested": map[string]any{}}}}})
	for _, s := range []*Snapshot{
		{},
		{Source: "b.zip", Notes: []string{"a", "b <c>"}, Unjudged: "no HNS state"},
		{Endpoints: []*Endpoint{ep, {ID: "B", IsRemote: true}}, Services: []*Service{}, Inputs: map[Input]string{InputHNSEndpoints: "hns/v2/endpoints.json"},
			KubeNodes: []*KubeNode{{Name: "n1", Annotations: NewAnnotations(Annotation{"k", "v"})}, nil}, HNSDiag: []HNSDiagObject{{}},
			OS: &OSInfo{}, Linux: &LinuxNet{}},
	} {
		var b bytes.Buffer
		if err := s.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		if got, want := b.String(), encoded(t, s); got != want {
			t.Errorf("WriteJSON\n%s\nthe encoder\n%s", got, want)
		}
	}
}
