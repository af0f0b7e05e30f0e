package snapshot

import "fmt"

// HNSVersion is the HNS API version (HNSCall GET /globals/version). HNS
// features come with versions: hcsshim gates remote subnets, DSR and the
// rest on it, and so does kube-proxy.
type HNSVersion struct {
	Major int64 `json:"major"`
	Minor int64 `json:"minor"`
}

func (v HNSVersion) String() string { return fmt.Sprintf("%d.%d", v.Major, v.Minor) }

// SupportsDSR: 9.3 and later 9.x, and 10.2 and later (hcsshim's DSRVersion).
func (v HNSVersion) SupportsDSR() bool {
	return v.Major == 9 && v.Minor >= 3 || v.Major == 10 && v.Minor >= 2 || v.Major > 10
}

// FileHNSGlobals is where the collector keeps the HNS version.
const FileHNSGlobals = "hns/v2/globals.json"

// ParseHNSGlobals reads {"Major":15,"Minor":4}, or the same under "Version".
func ParseHNSGlobals(data []byte) (*HNSVersion, error) {
	o, err := firstObject(data)
	if o == nil || err != nil {
		return nil, err
	}
	if v := o.child("Version"); v != nil {
		o = v
	}
	major, ok1 := o.num("Major")
	minor, ok2 := o.num("Minor")
	if !ok1 || !ok2 {
		return nil, nil
	}
	return &HNSVersion{Major: major, Minor: minor}, nil
}

// ParseHNSFeatures reads hns/v2/features.json: {"source", "version":
// {"Major","Minor"}, "features": {name: bool, group: {name: bool}}}.
func ParseHNSFeatures(data []byte) (*HNSFeatures, error) {
	o, err := firstObject(data)
	if o == nil || err != nil {
		return nil, err
	}
	f := &HNSFeatures{Source: o.str("source"), Supported: map[string]bool{}}
	if v := o.child("version"); v != nil {
		f.Version.Major, _ = v.num("Major")
		f.Version.Minor, _ = v.num("Minor")
	}
	feats := o.child("features")
	if feats == nil {
		return nil, fmt.Errorf("no \"features\" object")
	}
	for k, v := range feats {
		switch x := v.(type) {
		case bool:
			f.Supported[k] = x
		case map[string]any:
			for k2, v2 := range x {
				if b, ok := v2.(bool); ok {
					f.Supported[k+"."+k2] = b
				}
			}
		}
	}
	return f, nil
}
