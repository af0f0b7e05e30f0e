package finding

import (
	"sort"
	"strings"
)

// Sort orders findings worst first; at one severity a node's own
// state (the cause: OVL-01's ManagementIP) before what it explains across
// nodes (XN) and in the traffic (CAP); then by node, input and rule.
func Sort(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Severity != b.Severity {
			return a.Severity > b.Severity
		}
		if ra, rb := symptomRank(a.ID), symptomRank(b.ID); ra != rb {
			return ra < rb
		}
		if a.Node != b.Node {
			return a.Node < b.Node
		}
		if a.Input != b.Input {
			return a.Input < b.Input
		}
		return a.ID < b.ID
	})
}

// symptomRank: 0 for a rule about a node's own state, 1 for a cross-node
// rule, 2 for a capture rule (what a cause shows as on the wire).
func symptomRank(id string) int {
	switch {
	case strings.HasPrefix(id, "XN-"):
		return 1
	case strings.HasPrefix(id, "CAP-"):
		return 2
	}
	return 0
}

// LinkCauses ties each cross-node or capture finding (a symptom) to the
// finding about a node's own state that explains it: the worst one, ordered
// as Sort orders them, that names one of the same addresses,
// prefixes or VIPs. OVL-01's ManagementIP 10.0.2.15 explains XN-03's FDB
// entry for 10.0.2.15 and CAP-02's SYNs sent to it. Names (network:Calico,
// node:win-1) are not enough: many unrelated findings share them. fs must
// be sorted.
func LinkCauses(fs []Finding) {
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
			if symptomRank(c.ID) != 0 || c.Severity < Warn || !sharesKey(keys, c.Subjects) {
				continue
			}
			fs[i].Cause = &Ref{ID: c.ID, Node: c.Node}
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
