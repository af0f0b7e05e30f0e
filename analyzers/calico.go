package analyzers

import (
	"fmt"
	"sort"
	"strings"

	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/snapshot"
)

// aclWarnThreshold is the number of ACL policies on one endpoint above
// which Felix's reprogramming becomes heavy (the catalog's threshold).
const aclWarnThreshold = 1000

func init() {
	register(&Rule{
		ID: "CAL-02", Title: "Calico policy so large that reprogramming resets connections", Severity: finding.Warn,
		Needs: []snapshot.Input{snapshot.InputHNSEndpoints},
		Checks: fmt.Sprintf("On a Calico node, no local endpoint carries more than %d ACL policies. (Correlating TCP reset bursts with Felix updates needs a capture and Felix logs.)",
			aclWarnThreshold),
		Why: "Felix rewrites an endpoint's HNS ACL policies whenever a policy or a selector's member set changes, and HNS resets the endpoint's established TCP connections when it does; " +
			"with thousands of rules (source and destination selectors expand to one rule per address pair) this happens often and costs CPU.",
		Fix:     "Reduce what the policies expand to: fewer source+destination selector pairs, CIDRs or named sets instead of per-pod selectors, fewer policies selecting Windows pods.",
		Sources: []string{"https://docs.tigera.io/calico/latest/getting-started/kubernetes/windows-calico/limitations", "https://github.com/microsoft/Windows-Containers/issues/608"},
		OnlyFor: cniCalico,
		Check:   checkCalicoACLs,
	})
}

func checkCalicoACLs(s *snapshot.Snapshot) ([]Issue, error) {
	type heavy struct {
		e *snapshot.Endpoint
		n int
	}
	var list []heavy
	for _, e := range s.Endpoints {
		if e.IsRemote {
			continue
		}
		n := 0
		for _, p := range e.Policies {
			if strings.EqualFold(p.Type, "ACL") {
				n++
			}
		}
		if n > aclWarnThreshold {
			list = append(list, heavy{e, n})
		}
	}
	sort.Slice(list, func(i, j int) bool { return list[i].n > list[j].n })
	var issues []Issue
	for _, h := range list {
		issues = append(issues, Issue{
			Summary: fmt.Sprintf("endpoint %s (%s) carries %d ACL policies: each policy or selector change makes Felix reprogram them and HNS reset the pod's TCP connections",
				h.e.Name, addrOrNone(h.e.IP), h.n),
			Evidence: []finding.Evidence{{File: h.e.Refs[len(h.e.Refs)-1].File, Object: "endpoint " + h.e.ID, Field: "Policies[Type=ACL]", Value: fmt.Sprint(h.n), Expected: fmt.Sprintf("at most %d", aclWarnThreshold)}},
			Subjects: []string{"address:" + addrOrNone(h.e.IP)},
		})
	}
	return issues, nil
}
