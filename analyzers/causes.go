package analyzers

import (
	"strings"

	"github.com/wincni/diag/finding"
)

// LinkCauses ties each cross-node or capture finding (a symptom) to the
// finding about a node's own state that explains it: the worst one, ordered
// as SortFindings orders them, that names one of the same addresses,
// prefixes or VIPs. OVL-01's ManagementIP 10.0.2.15 explains XN-03's FDB
// entry for 10.0.2.15 and CAP-02's SYNs sent to it. Names (network:Calico,
// node:win-1) are not enough: many unrelated findings share them. fs must
// be sorted.
func LinkCauses(fs []finding.Finding) {
	for i := range fs {
		fs[i].Cause = nil
		if symptomRank(fs[i].ID) == 0 {
			continue
		}
		keys := causeKeys(fs[i].Subjects)
		if len(keys) == 0 {
			continue
		}
		for _, c := range fs {
			if symptomRank(c.ID) != 0 || c.Severity < finding.Warn || !sharesKey(keys, c.Subjects) {
				continue
			}
			fs[i].Cause = &finding.Ref{ID: c.ID, Node: c.Node}
			break
		}
	}
}

func causeKeys(subjects []string) []string {
	var keys []string
	for _, s := range subjects {
		kind, _, _ := strings.Cut(s, ":")
		switch kind {
		case "address", "prefix", "vip":
			keys = append(keys, s)
		}
	}
	return keys
}

func sharesKey(keys, subjects []string) bool {
	for _, s := range subjects {
		for _, k := range keys {
			if s == k {
				return true
			}
		}
	}
	return false
}
