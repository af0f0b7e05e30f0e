package formats

import (
	"fmt"

	"github.com/wincni/diag/snapshot"
)

// ParseHNSGlobals reads {"Major":15,"Minor":4}, or the same under "Version".
func ParseHNSGlobals(data []byte) (*snapshot.HNSVersion, error) {
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
	return &snapshot.HNSVersion{Major: major, Minor: minor}, nil
}

// ParseHNSFeatures reads hns/v2/features.json: {"source", "version":
// {"Major","Minor"}, "features": {name: bool, group: {name: bool}}}.
func ParseHNSFeatures(data []byte) (*snapshot.HNSFeatures, error) {
	o, err := firstObject(data)
	if o == nil || err != nil {
		return nil, err
	}
	f := &snapshot.HNSFeatures{Source: o.str("source"), Supported: map[string]bool{}}
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
