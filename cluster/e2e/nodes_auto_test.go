//go:build unix

package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/wincni/diag/cluster"
	"github.com/wincni/diag/cluster/clustertest/realcluster"
)

// TestNodesAuto: --nodes auto on a cluster of its own: a NotReady Windows node, one
// with sandbox failure events, a healthy Windows and Linux node to
// compare, and nodes it does not choose.
func TestNodesAuto(t *testing.T) {
	cp := startPlane(t, realcluster.Options{})
	s := newScenario(t, cp, "diag")
	ns := []realcluster.NodeSpec{
		{Name: "au-w1", OS: "windows"}, {Name: "au-w2", OS: "windows"}, {Name: "au-w3", OS: "windows"},
		{Name: "au-nr", OS: "windows", NoKubelet: true},
		{Name: "au-l1", OS: "linux"}, {Name: "au-l2", OS: "linux"},
	}
	s.addNodes(ns)
	notReady := []byte(`{"status":{"conditions":[{"type":"Ready","status":"False","reason":"KubeletNotReady"}]}}`)
	if _, err := cp.Do(cp.Admin, http.MethodPatch, "/api/v1/nodes/au-nr/status", "application/merge-patch+json", notReady); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Format(time.RFC3339)
	for i := range 2 {
		ev := fmt.Sprintf(`{"apiVersion":"v1","kind":"Event","metadata":{"name":"sb-%d","namespace":"default"},"type":"Warning","reason":"FailedCreatePodSandBox",
"message":"failed to setup network for sandbox","involvedObject":{"kind":"Pod","namespace":"default","name":"web-%d"},"source":{"component":"kubelet","host":"au-w3"},
"firstTimestamp":%q,"lastTimestamp":%q,"count":1}`, i, i, now, now)
		if _, err := cp.Do(cp.Admin, http.MethodPost, "/api/v1/namespaces/default/events", "application/json", []byte(ev)); err != nil {
			t.Fatal(err)
		}
	}
	r := s.collect("", "--nodes", "auto", "--node-timeout", "6s")
	t.Logf("exit %d:\n%s", r.code, r.stderr)
	if r.report == nil {
		t.Fatal("no cluster.json")
	}
	why := map[string]string{}
	for _, n := range r.report.Nodes {
		why[n.Name] = n.Status + ": " + n.Why
	}
	want := map[string]string{"au-nr": "NotReady", "au-w3": "sandbox failure", "au-w1": "healthy Windows", "au-l1": "Linux"}
	for name, w := range want {
		if !strings.Contains(why[name], w) {
			t.Errorf("%s: %q, want chosen because %s", name, why[name], w)
		}
	}
	if len(r.report.Nodes) != len(want) {
		t.Errorf("chosen: %v", why)
	}
	if r.code != 3 || r.report.Count(cluster.StatusOK) != 3 || len(r.report.Stuck()) != 1 {
		t.Errorf("exit %d (want 3: the NotReady node gives no bundle): %s", r.code, lastLine(r.stderr))
	}
	s.saidAsWritten(r, r.report)
	s.checkAudit(s.user, r.report)
	c := runDiag(t, s.kubeconfig, "collect", "--cluster", "--cleanup", "--force", "--namespace", s.ns)
	if c.code != 0 {
		t.Errorf("cleanup --force: exit %d:\n%s", c.code, c.stderr)
	}
	s.noPodsLeft()
}
