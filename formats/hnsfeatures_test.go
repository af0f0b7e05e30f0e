package formats

import (
	"testing"

	"github.com/wincni/diag/snapshot"
)

// TestFeature: the node's own answer first, hcsshim's version table for
// bundles without it, unknown without either.
func TestFeature(t *testing.T) {
	f, err := ParseHNSFeatures([]byte(`{"source":"github.com/Microsoft/hcsshim v0.15.0 hcn.GetSupportedFeatures","version":{"Major":15,"Minor":1},
		"features":{"ACL":{"AclPortRanges":true},"DSR":true,"ModifyLoadbalancer":false,"IPv6DualStack":true}}`))
	if err != nil {
		t.Fatal(err)
	}
	if !f.Supported["ACL.AclPortRanges"] || f.Version != (snapshot.HNSVersion{Major: 15, Minor: 1}) {
		t.Errorf("parsed %+v", f)
	}
	s := &snapshot.Snapshot{HNSFeatures: f, HNSVersion: &snapshot.HNSVersion{Major: 15, Minor: 4}}
	if st := s.Feature(snapshot.FeatureModifyLoadbalancer); !st.Known || st.Supported || st.File != snapshot.FileHNSFeatures {
		t.Errorf("features.json first: %+v", st)
	}
	// Not in features.json (an older hcsshim): the table.
	if st := s.Feature(snapshot.FeatureSessionAffinity); !st.Known || !st.Supported || st.File != snapshot.FileHNSGlobals {
		t.Errorf("fallback: %+v", st)
	}
	for _, c := range []struct {
		v    snapshot.HNSVersion
		name string
		want bool
	}{
		{snapshot.HNSVersion{Major: 9, Minor: 3}, snapshot.FeatureDSR, true}, {snapshot.HNSVersion{Major: 10, Minor: 1}, snapshot.FeatureDSR, false}, {snapshot.HNSVersion{Major: 10, Minor: 2}, snapshot.FeatureDSR, true},
		{snapshot.HNSVersion{Major: 9, Minor: 99}, snapshot.FeatureDSR, true}, {snapshot.HNSVersion{Major: 15, Minor: 3}, snapshot.FeatureModifyLoadbalancer, false},
		{snapshot.HNSVersion{Major: 15, Minor: 4}, snapshot.FeatureModifyLoadbalancer, true}, {snapshot.HNSVersion{Major: 11, Minor: 9}, snapshot.FeatureIPv6DualStack, false},
		{snapshot.HNSVersion{Major: 12, Minor: 0}, snapshot.FeatureIPv6DualStack, true},
	} {
		v := c.v
		if st := (&snapshot.Snapshot{HNSVersion: &v}).Feature(c.name); !st.Known || st.Supported != c.want {
			t.Errorf("HNS %s %s: %+v, want %v", c.v, c.name, st, c.want)
		}
	}
	if st := (&snapshot.Snapshot{}).Feature(snapshot.FeatureDSR); st.Known {
		t.Errorf("no version, no features: %+v", st)
	}
	if _, err := ParseHNSFeatures([]byte(`{"version":{"Major":1}}`)); err == nil {
		t.Error("features.json without features: no error")
	}
}

// TestReadyAddressesFor: with named target ports, a pod without one of
// them sits in a slice without it and is no endpoint of that port.
func TestReadyAddressesFor(t *testing.T) {
	sl, err := ParseEndpointSlices([]byte(`{"items":[
	 {"metadata":{"labels":{"kubernetes.io/service-name":"web"}},"ports":[{"name":"http","protocol":"TCP","port":8080},{"name":"metrics","protocol":"TCP","port":9100}],
	  "endpoints":[{"addresses":["10.244.1.5"],"conditions":{"ready":true}}]},
	 {"metadata":{"labels":{"kubernetes.io/service-name":"web"}},"ports":[{"name":"http","protocol":"TCP","port":8080}],
	  "endpoints":[{"addresses":["10.244.1.6"],"conditions":{"ready":true}}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	http, _ := snapshot.ReadyAddressesFor(sl, "TCP/8080")
	metrics, _ := snapshot.ReadyAddressesFor(sl, "TCP/9100")
	all, _ := snapshot.ReadyAddresses(sl)
	if len(http) != 2 || len(metrics) != 1 || len(all) != 2 {
		t.Errorf("http %v metrics %v all %v", http, metrics, all)
	}
}
