//go:build unix

package e2e

import (
	"strings"
	"time"

	"github.com/wincni/diag/cluster"
)

// Helpers of the scenarios that signal processes (unix only).

// checkAudit: every pod the server created for user was deleted by diag
// (a 2xx DELETE) or is named as left in cluster.json.
func (s *scenario) checkAudit(user string, rep *cluster.Report) {
	s.t.Helper()
	ev := s.audit(user)
	deleted := map[string]bool{}
	for _, e := range ev {
		if e.Verb == "delete" && e.Resource() == "pods" && e.ResponseStatus.Code/100 == 2 {
			deleted[e.ObjectRef.Name] = true
		}
	}
	left := map[string]bool{}
	if rep != nil {
		for _, p := range rep.PodsLeft() {
			left[strings.TrimPrefix(p, rep.Namespace+"/")] = true
		}
	}
	for _, p := range podCreates(ev) {
		if !deleted[p] && !left[p] {
			s.t.Errorf("pod %s created for %s, never deleted by diag nor reported left", p, user)
		}
	}
}

// waitPods waits until n pods of diag's are there in the scenario's namespace.
func (s *scenario) waitPods(n int, within time.Duration) bool {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		pods, _ := s.cp.Pods()
		k := 0
		for _, p := range pods {
			if p.Metadata.Namespace == s.ns && p.Metadata.DeletionTimestamp == nil {
				k++
			}
		}
		if k >= n {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}
