package formats

import (
	"fmt"
	"strings"

	"github.com/wincni/diag/manifest"
	"github.com/wincni/diag/snapshot"
)

// hnsCollectors are the collectors that read HNS state on a node.
var hnsCollectors = map[string]bool{"hns-v2": true, "hns-v1": true}

// markUnjudged sets Unjudged on a Windows node's bundle that holds no HNS
// networks or endpoints: without them every HNS rule is skipped, and "no
// findings" would read as a healthy node. The collectors' own errors (HNS
// unavailable, not an administrator) say why.
func markUnjudged(s *snapshot.Snapshot) {
	if s.Format != snapshot.FormatBundle || s.Has(snapshot.InputHNSNetworks) || s.Has(snapshot.InputHNSEndpoints) || !windowsBundle(s) {
		return
	}
	var why []string
	if m := s.Manifest; m != nil {
		for _, c := range m.Collectors {
			if hnsCollectors[c.ID] && c.Status != manifest.StatusOK {
				w := c.ID + " " + c.Status
				if c.Error != "" {
					w += ": " + c.Error
				}
				why = append(why, w)
			}
		}
	}
	if len(why) == 0 {
		why = append(why, "no hns/ files")
	}
	s.Unjudged = fmt.Sprintf("no HNS state (%s): the HNS rules could not run, so no finding does not mean a healthy node; collect again as Administrator (or in a HostProcess pod) on the node", strings.Join(why, "; "))
	s.Notes = append(s.Notes, s.Unjudged)
}

// windowsBundle: the manifest says so, or it ran Windows collectors, or
// the OS it read is Windows.
func windowsBundle(s *snapshot.Snapshot) bool {
	if m := s.Manifest; m != nil {
		if m.OS == "windows" {
			return true
		}
		if m.OS == "linux" {
			return false
		}
		for _, c := range m.Collectors {
			if hnsCollectors[c.ID] {
				return true
			}
		}
	}
	return s.OS != nil && strings.Contains(strings.ToLower(s.OS.ProductName), "windows")
}
