//go:build unix

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wincni/diag/cluster"
	"github.com/wincni/diag/cluster/clustertest/realcluster"
)

// TestSilentServerAndRefusedNode: a policy refusing one node by name, a
// node --nodes names that does not exist, and Ctrl-C while the API server
// does not answer (the node list, the deletes) or while diag waits for
// Terminating pods.
func TestSilentServerAndRefusedNode(t *testing.T) {
	cp := startPlane(t, realcluster.Options{})

	t.Run("a policy refusing one node name leaves the other nodes of its OS collected", func(t *testing.T) {
		s := newScenario(t, cp, "vname")
		s.policy("reserved-node", "!has(object.spec.nodeName) || object.spec.nodeName != 'vn-1'", "node vn-1 is reserved (policy reserved-node)", realcluster.ProbePod("windows", "vn-1"))
		ns := s.addNodes(nodes("vn", 4, "windows", ""))
		r := s.collect("", "--nodes", names(ns), "--parallel", "1", "--node-timeout", "60s")
		if r.report == nil {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		for _, n := range r.report.Nodes {
			if n.Name != "vn-1" && n.Status != cluster.StatusOK || n.Name == "vn-1" && (!strings.Contains(n.Reason, "reserved") || strings.Contains(n.Reason, "as invalid")) {
				t.Errorf("%s: %s: %s", n.Name, n.Status, n.Reason)
			}
		}
		if r.code != 3 || !strings.Contains(lastLine(r.stderr), "3 of 4 node(s)") {
			t.Errorf("exit %d, want 3 (3 of 4 nodes): %s", r.code, lastLine(r.stderr))
		}
		s.noPodsLeft()
		s.checkAudit(s.user, r.report)
	})

	t.Run("--nodes naming a node that does not exist: a node without a bundle, exit 3", func(t *testing.T) {
		s := newScenario(t, cp, "nonexist")
		s.addNodes(nodes("nx", 1, "linux", ""))
		r := s.collect("", "--nodes", "nx-1,nx-typo", "--node-timeout", "60s")
		if r.code != 3 || !strings.Contains(lastLine(r.stderr), "1 of 2 node(s)") {
			t.Errorf("exit %d: %s", r.code, lastLine(r.stderr))
		}
		s.noPodsLeft()
	})

	t.Run("Ctrl-C while the API server does not answer the node list: not exit 1", func(t *testing.T) {
		s := newScenario(t, cp, "early")
		ns := s.addNodes(nodes("eb", 2, "linux", "hang"))
		pid := cp.APIServerPID()
		dir := filepath.Join(t.TempDir(), "out")
		r := runDiagWith(t, s.kubeconfig, func(p *os.Process) {
			_ = syscall.Kill(pid, syscall.SIGSTOP)
			time.Sleep(1500 * time.Millisecond)
			_ = p.Signal(os.Interrupt)
			time.Sleep(500 * time.Millisecond)
			_ = syscall.Kill(pid, syscall.SIGCONT)
		}, s.args(dir, "--nodes", names(ns), "--node-timeout", "60s")...)
		_ = syscall.Kill(pid, syscall.SIGCONT)
		if r.code != 3 || !strings.Contains(lastLine(r.stderr), "interrupted before any pod was made") {
			t.Errorf("exit %d: %s", r.code, r.stderr)
		}
		s.noPodsLeft()
	})

	t.Run("Ctrl-C while diag waits for Terminating pods ends the wait and names them", func(t *testing.T) {
		s := newScenario(t, cp, "waitterm")
		ns := s.addNodes([]realcluster.NodeSpec{{Name: "wt-1", OS: "windows", NoKubelet: true}})
		dir := filepath.Join(t.TempDir(), "out")
		var sent time.Time
		r := runDiagWith(t, s.kubeconfig, func(p *os.Process) {
			// The node's time ends at 3 s, then diag waits for the delete.
			for !s.sawWaiting(dir) {
				time.Sleep(50 * time.Millisecond)
			}
			sent = time.Now()
			_ = p.Signal(os.Interrupt)
		}, s.args(dir, "--nodes", names(ns), "--node-timeout", "3s")...)
		rep := readReport(t, dir)
		if rep == nil || len(rep.Stuck()) != 1 || !strings.Contains(r.stderr, "waiting up to") || !strings.Contains(r.stderr, "--cleanup --force") || r.code != 3 {
			t.Errorf("exit %d %.1fs after the Ctrl-C:\n%s", r.code, time.Since(sent).Seconds(), r.stderr)
		}
		cp.ForceDeleteAll()
	})

	t.Run("the API server not answering deletes: said as unanswered, not refused", func(t *testing.T) {
		s := newScenario(t, cp, "paused")
		ns := s.addNodes(nodes("pz", 2, "linux", "hang"))
		dir := filepath.Join(t.TempDir(), "out")
		r := runDiagWith(t, s.kubeconfig, s.interruptPaused(2, 65*time.Second), s.args(dir, "--nodes", names(ns), "--parallel", "2", "--node-timeout", "120s")...)
		rep := readReport(t, dir)
		if rep == nil || len(rep.Unanswered()) != 2 || strings.Contains(r.stderr, "delete refused") || !strings.Contains(r.stderr, "did not answer their delete") || strings.Contains(r.stderr, "\n: ") {
			t.Errorf("exit %d:\n%s", r.code, r.stderr)
		}
		cp.ForceDeleteAll()
	})
}
