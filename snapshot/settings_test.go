package snapshot

import (
	"encoding/json"
	"testing"
)

// TestPolicySettingsAndFlannelBackend: settings read as the parsers'
// getter reads them (names in any case, numbers as JSON numbers, floats
// or text), and flannel's backend-data annotation.
func TestPolicySettingsAndFlannelBackend(t *testing.T) {
	p := Policy{Type: "NAT", Settings: map[string]any{"externalport": json.Number("8080"), "InternalPort": 80.0, "Protocol": "6"}}
	if v, ok := p.Num("ExternalPort"); !ok || v != 8080 {
		t.Errorf("ExternalPort %d %v", v, ok)
	}
	if v, _ := p.Num("InternalPort"); v != 80 {
		t.Errorf("InternalPort %d", v)
	}
	if p.Str("protocol") != "6" || p.Kind() != "PortMapping" {
		t.Errorf("Protocol %q kind %q", p.Str("protocol"), p.Kind())
	}
	n := &KubeNode{Annotations: SortedPairs(Pair{AnnotationFlannelBackendData, `{"VNI":4096,"VtepMAC":"0e:2a:0a:f4:01:00"}`})}
	if vni, mac, ok := n.FlannelBackend(); !ok || vni != 4096 || mac != NormalizeMAC("0E-2A-0A-F4-01-00") {
		t.Errorf("backend %d %q %v", vni, mac, ok)
	}
	if _, _, ok := (&KubeNode{Annotations: SortedPairs(Pair{AnnotationFlannelBackendData, "not json"})}).FlannelBackend(); ok {
		t.Error("a broken annotation read as backend data")
	}
}
