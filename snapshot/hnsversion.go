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

// FileHNSGlobals is where the collector keeps the HNS version.
const FileHNSGlobals = "hns/v2/globals.json"
