package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wincni/diag/cluster"
	"github.com/wincni/diag/cluster/clustertest/realcluster"
)

// TestRealAPIServer runs the scenarios against one control plane with
// --allow-privileged, each in its own namespace with its own nodes.
func TestRealAPIServer(t *testing.T) {
	cp := startPlane(t, realcluster.Options{})

	t.Run("every node collected, every pod gone, as the audit log says", func(t *testing.T) {
		s := newScenario(t, cp, "ok")
		ns := append(nodes("ok-win", 2, "windows", ""), nodes("ok-lin", 2, "linux", "")...)
		if err := cp.AddNodes(ns...); err != nil {
			t.Fatal(err)
		}
		r := s.collect("", "--nodes", names(ns), "--parallel", "4", "--node-timeout", "60s")
		if r.report == nil || r.report.Count(cluster.StatusOK) != 4 {
			t.Fatalf("exit %d, report %+v\n%s", r.code, r.report, r.stderr)
		}
		if r.code != 0 && r.code != 3 || strings.Contains(r.stderr, "collection is partial") {
			t.Errorf("exit %d: %s", r.code, lastLine(r.stderr))
		}
		for _, n := range r.report.Nodes {
			if _, err := os.Stat(filepath.Join(r.dir, n.Bundle)); err != nil {
				t.Errorf("%s: %v", n.Name, err)
			}
		}
		s.noPodsLeft()
		ev := s.audit(s.user)
		if len(ev) == 0 {
			t.Fatalf("no request with user agent %s in the audit log", agent)
		}
		created := podCreates(ev)
		deleted := map[string]bool{}
		for _, e := range ev {
			if e.ResponseStatus.Code == 403 {
				t.Errorf("refused: %s %s: %s", e.Verb, e.Resource(), e.ResponseStatus.Message)
			}
			if e.Verb == "delete" && e.Resource() == "pods" && e.ResponseStatus.Code/100 == 2 {
				deleted[e.ObjectRef.Name] = true
			}
			if e.Verb == "get" && e.Resource() == "pods" {
				t.Errorf("polled pod %s (a watch follows the run's pods)", e.ObjectRef.Name)
			}
		}
		if len(created) != 4 {
			t.Errorf("the server created %d pods, diag reports 4: %v", len(created), created)
		}
		for _, p := range created {
			if !deleted[p] {
				t.Errorf("pod %s created, never deleted by diag", p)
			}
		}
	})
}
