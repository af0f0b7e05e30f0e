package snapshot

import (
	"fmt"
)

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
