package snapshot

import "testing"

// TestFeature: the node's own answer first, hcsshim's version table for
// bundles without it, unknown without either.
func TestFeature(t *testing.T) {
	f, err := ParseHNSFeatures([]byte(`{"source":"github.com/Microsoft/hcsshim v0.15.0 hcn.GetSupportedFeatures","version":{"Major":15,"Minor":1},
		"features":{"ACL":{"AclPortRanges":true},"DSR":true,"ModifyLoadbalancer":false,"IPv6DualStack":true}}`))
	if err != nil {
		t.Fatal(err)
	}
	if !f.Supported["ACL.AclPortRanges"] || f.Version != (HNSVersion{15, 1}) {
		t.Errorf("parsed %+v", f)
	}
	s := &Snapshot{HNSFeatures: f, HNSVersion: &HNSVersion{15, 4}}
	if st := s.Feature(FeatureModifyLoadbalancer); !st.Known || st.Supported || st.File != FileHNSFeatures {
		t.Errorf("features.json first: %+v", st)
	}
	// Not in features.json (an older hcsshim): the table.
	if st := s.Feature(FeatureSessionAffinity); !st.Known || !st.Supported || st.File != FileHNSGlobals {
		t.Errorf("fallback: %+v", st)
	}
	for _, c := range []struct {
		v    HNSVersion
		name string
		want bool
	}{
		{HNSVersion{9, 3}, FeatureDSR, true}, {HNSVersion{10, 1}, FeatureDSR, false}, {HNSVersion{10, 2}, FeatureDSR, true},
		{HNSVersion{9, 99}, FeatureDSR, true}, {HNSVersion{15, 3}, FeatureModifyLoadbalancer, false},
		{HNSVersion{15, 4}, FeatureModifyLoadbalancer, true}, {HNSVersion{11, 9}, FeatureIPv6DualStack, false},
		{HNSVersion{12, 0}, FeatureIPv6DualStack, true},
	} {
		v := c.v
		if st := (&Snapshot{HNSVersion: &v}).Feature(c.name); !st.Known || st.Supported != c.want {
			t.Errorf("HNS %s %s: %+v, want %v", c.v, c.name, st, c.want)
		}
	}
	if st := (&Snapshot{}).Feature(FeatureDSR); st.Known {
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
	http, _ := ReadyAddressesFor(sl, "TCP/8080")
	metrics, _ := ReadyAddressesFor(sl, "TCP/9100")
	all, _ := ReadyAddresses(sl)
	if len(http) != 2 || len(metrics) != 1 || len(all) != 2 {
		t.Errorf("http %v metrics %v all %v", http, metrics, all)
	}
}
