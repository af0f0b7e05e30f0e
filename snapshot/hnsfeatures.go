package snapshot

import "sort"

// HNSFeatures is hns/v2/features.json: the HNS version and the features
// hcsshim's hcn package derives from it, as the Windows collector asked
// them (hcn.GetGlobals, hcn.GetSupportedFeatures). kube-proxy, flannel
// and the sdnoverlay CNI decide by exactly these.
type HNSFeatures struct {
	Source  string     `json:"source,omitempty"` // the hcsshim that answered
	Version HNSVersion `json:"version"`
	// Supported holds every feature by its hcsshim JSON name, nested ones
	// as ACL.AclPortRanges, API.V2.
	Supported map[string]bool `json:"supported"`
}

// FileHNSFeatures is where the collector keeps them.
const FileHNSFeatures = "hns/v2/features.json"

// Feature names of hcsshim's SupportedFeatures that rules read.
const (
	FeatureDSR                = "DSR"
	FeatureIPv6DualStack      = "IPv6DualStack"
	FeatureModifyLoadbalancer = "ModifyLoadbalancer"
	FeatureSessionAffinity    = "SessionAffinity"
	FeatureRemoteSubnet       = "RemoteSubnet"
)

// FeatureState is whether HNS has a feature, and how diag knows.
type FeatureState struct {
	Supported bool
	Known     bool
	// Source says where the answer came from: features.json (what
	// hcsshim said on the node) or the version and hcsshim's table.
	Source string
	// File is the bundle file it was read from.
	File string
}

// versionRange is [min, max] of HNS versions, as hcsshim's VersionRange.
type versionRange struct{ minMajor, minMinor, maxMajor, maxMinor int64 }

const anyVersion = 1 << 31

// featureVersions are hcsshim's hcn version ranges (hcnglobals.go,
// v0.15.0) for the features rules read, for bundles without
// features.json (collectlogs, pastes, older diag).
var featureVersions = map[string][]versionRange{
	FeatureDSR:                {{9, 3, 9, anyVersion}, {10, 2, anyVersion, anyVersion}},
	FeatureIPv6DualStack:      {{11, 10, anyVersion, anyVersion}},
	FeatureModifyLoadbalancer: {{15, 4, anyVersion, anyVersion}},
	FeatureSessionAffinity:    {{12, 0, anyVersion, anyVersion}},
	FeatureRemoteSubnet:       {{9, 2, anyVersion, anyVersion}},
}

// inRange is hcsshim's isFeatureInRange.
func (r versionRange) inRange(v HNSVersion) bool {
	switch {
	case v.Major < r.minMajor, v.Major > r.maxMajor:
		return false
	case v.Major == r.minMajor && v.Minor < r.minMinor:
		return false
	case v.Major == r.maxMajor && v.Minor > r.maxMinor:
		return false
	}
	return true
}

// Feature says whether HNS on this node has a feature: from features.json
// when the bundle has it, else from the HNS version through hcsshim's
// table, else unknown.
func (s *Snapshot) Feature(name string) FeatureState {
	if f := s.HNSFeatures; f != nil {
		if v, ok := f.Supported[name]; ok {
			src := "hcsshim"
			if f.Source != "" {
				src = f.Source
			}
			return FeatureState{Supported: v, Known: true, Source: src + " on the node", File: FileHNSFeatures}
		}
	}
	if v := s.HNSVersion; v != nil {
		if ranges, ok := featureVersions[name]; ok {
			st := FeatureState{Known: true, File: FileHNSGlobals, Source: "the HNS version and hcsshim's version table"}
			for _, r := range ranges {
				st.Supported = st.Supported || r.inRange(*v)
			}
			return st
		}
	}
	return FeatureState{}
}

// Names lists the supported features, sorted.
func (f *HNSFeatures) Names() []string {
	var out []string
	for k, v := range f.Supported {
		if v {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
