//go:build unix

package e2e

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wincni/diag/cluster"
	"github.com/wincni/diag/cluster/clustertest/realcluster"
)

// TestStoppedRunsReportedTruly: how a run that stops is reported: a
// signal after a bundle arrived, another node's refusal, a Ctrl-C during
// --cleanup --force, each OS failing its own way, a cleaner who may not
// watch, a namespace being terminated. Each gets the exit status and the
// words the help documents.
func TestStoppedRunsReportedTruly(t *testing.T) {
	cp := startPlane(t, realcluster.Options{})

	// A signal after a bundle arrived stops the run and its pods go; the
	// analysis of what arrived must not meet the same cancelled context
	// (exit 1, "a bug in diag").
	t.Run("Ctrl-C or SIGTERM after a bundle arrived: not exit 1", func(t *testing.T) {
		s := newScenario(t, cp, "sigafter")
		running := []realcluster.NodeSpec{{Name: "sa-ok", OS: "windows"}, {Name: "sa-hang-1", OS: "linux", Behave: "hang"}, {Name: "sa-hang-2", OS: "windows", Behave: "hang"}}
		waiting := []realcluster.NodeSpec{{Name: "sa-ok2", OS: "linux"}, {Name: "sa-nk", OS: "windows", NoKubelet: true}}
		s.addNodes(running, waiting)
		for _, c := range []struct {
			phase string
			ns    []realcluster.NodeSpec
			sig   os.Signal
			ready func(dir string) bool
		}{
			// Other nodes still collect.
			{"while two nodes still collect", running, os.Interrupt, func(dir string) bool { return exists(filepath.Join(dir, "sa-ok.zip")) }},
			{"while two nodes still collect", running, syscall.SIGTERM, func(dir string) bool { return exists(filepath.Join(dir, "sa-ok.zip")) }},
			// diag waits for a pod whose node has no kubelet to go.
			{"while diag waits for a Terminating pod", waiting, syscall.SIGTERM, s.sawWaiting},
		} {
			dir := filepath.Join(t.TempDir(), "out")
			r := runDiagWith(t, s.kubeconfig, func(p *os.Process) {
				deadline := time.Now().Add(60 * time.Second)
				for !c.ready(dir) && time.Now().Before(deadline) {
					time.Sleep(20 * time.Millisecond)
				}
				_ = p.Signal(c.sig)
			}, s.args(dir, "--nodes", names(c.ns), "--parallel", "4", "--node-timeout", "5s")...)
			rep := readReport(t, dir)
			if r.code != 3 {
				t.Errorf("%v %s: exit %d (want 3: nodes without a bundle): %s", c.sig, c.phase, r.code, lastLine(r.stderr))
			}
			if rep == nil || rep.Count(cluster.StatusOK) != 1 {
				t.Errorf("%v %s: cluster.json %+v", c.sig, c.phase, rep)
			}
			s.checkAudit(s.user, rep)
			s.saidAsWritten(r, rep)
			cp.ForceDeleteAll()
		}
	})

	// Nodes waiting for their pod to run when another node's refusal stops
	// the run are cancelled (the run stopped), not failed with that node's
	// refusal (naming its pod) as their own.
	t.Run("another node's exec refusal stops the run: nodes whose pods were starting are cancelled, not failed with its words", func(t *testing.T) {
		s := newScenario(t, cp, "cancelwords")
		ok := []realcluster.NodeSpec{{Name: "cw-ok", OS: "linux"}}
		pending := []realcluster.NodeSpec{{Name: "cw-nk-1", OS: "linux", NoKubelet: true}, {Name: "cw-nk-2", OS: "windows", NoKubelet: true}}
		ns := s.addNodes(pending, ok)
		user := "cw-user"
		kc := s.twoRoles(user)
		dir := filepath.Join(t.TempDir(), "out")
		r := runDiagWith(t, kc, s.dropExec(user, 3), s.args(dir, "--nodes", names(ns), "--parallel", "3", "--node-timeout", "60s")...)
		rep := readReport(t, dir)
		if r.code != 2 || rep == nil || !strings.Contains(lastLine(r.stderr), "pods/exec") {
			t.Fatalf("exit %d:\n%s", r.code, r.stderr)
		}
		for _, n := range rep.Nodes {
			if n.Name == "cw-ok" {
				continue
			}
			if n.Status != cluster.StatusCancelled || !strings.HasPrefix(n.Reason, "the run stopped: ") {
				t.Errorf("%s (its pod never ran, no exec was sent for it): %s: %s", n.Name, n.Status, n.Reason)
			}
		}
		s.checkAudit(user, rep)
		s.saidAsWritten(r, rep)
		cp.ForceDeleteAll()
	})

	// A Ctrl-C while --cleanup --force waits for a deleted pod to go: the
	// pod was deleted and is Terminating, and diag says so and what
	// removes it, not exit 2 and "pod ... not deleted: delete pods
	// interrupted" as if the server had refused the delete.
	t.Run("Ctrl-C while --cleanup --force waits for a pod whose node has no kubelet: exit 3, the pod named Terminating", func(t *testing.T) {
		s := newScenario(t, cp, "cleanint")
		ns := s.addNodes([]realcluster.NodeSpec{{Name: "ci-nk", OS: "linux", NoKubelet: true}})
		runDiagWith(t, s.kubeconfig, func(p *os.Process) {
			if !s.waitPods(1, 30*time.Second) {
				t.Error("pod not made")
			}
			_ = p.Kill()
		}, s.args(filepath.Join(t.TempDir(), "out"), "--nodes", names(ns), "--node-timeout", "60s")...)
		r := runDiagWith(t, s.kubeconfig, func(p *os.Process) {
			time.Sleep(3 * time.Second)
			_ = p.Signal(os.Interrupt)
		}, "collect", "--cluster", "--cleanup", "--force", "--namespace", s.ns)
		t.Logf("cleanup --force, Ctrl-C: exit %d:\n%s", r.code, r.stderr)
		left := cp.PodsLeft()
		if len(left) != 1 || !strings.Contains(left[0], "Terminating") {
			t.Fatalf("on the server: %v", left)
		}
		// The pod was deleted and is Terminating: exit 3 (a pod could not be
		// removed), named Terminating with the command that removes it;
		// not exit 2 (bad usage, a refusal) nor "not deleted" as if refused.
		if r.code != 3 || !strings.Contains(r.stderr, "Terminating") || strings.Contains(r.stderr, "not deleted") {
			t.Errorf("exit %d:\n%s", r.code, r.stderr)
		}
		cp.ForceDeleteAll()
	})

	// The docs give exit 2 "when every OS was refused". With Windows pods
	// refused by a policy and the Linux nodes' pods never starting (no
	// kubelet), no bundle arrives, but Linux was never refused (its nodes
	// timed out): exit 3, not the Windows refusal's exit 2 and its words
	// as the last line.
	t.Run("Windows refused by a policy, Linux pods never start: exit 3, not the Windows refusal's exit 2", func(t *testing.T) {
		s := newScenario(t, cp, "halfref")
		s.policy("no-hostprocess-halfref", noHostProcess, "HostProcess pods are not allowed in this cluster (policy no-hostprocess-halfref)", realcluster.ProbePod("windows", ""))
		ns := s.addNodes([]realcluster.NodeSpec{{Name: "hr-win-1", OS: "windows"}, {Name: "hr-win-2", OS: "windows"}, {Name: "hr-lin-1", OS: "linux", NoKubelet: true}, {Name: "hr-lin-2", OS: "linux", NoKubelet: true}})
		r := s.collect("", "--nodes", names(ns), "--parallel", "4", "--node-timeout", "4s")
		t.Logf("exit %d:\n%s", r.code, r.stderr)
		if r.report == nil || r.report.Count(cluster.StatusTimeout) != 2 || r.report.Count(cluster.StatusFailed) != 2 {
			t.Fatalf("cluster.json: %+v", r.report)
		}
		if r.code != 3 {
			t.Errorf("exit %d (Linux was not refused: its nodes gave no bundle, exit 3): %s", r.code, lastLine(r.stderr))
		}
		s.checkAudit(s.user, r.report)
		s.saidAsWritten(r, r.report)
		cp.ForceDeleteAll()
	})

	// --cleanup follows the pods with a list and a watch. A user who may
	// list and delete but not watch is refused up front, naming watch; or
	// both pods are deleted (2xx), gone within the second, and said gone:
	// not "is still Terminating: its node's kubelet did not confirm the
	// delete", "0 of 2 pod(s) gone", exit 3, from the first list taken for
	// the end state with the watch's refusal dropped.
	t.Run("--cleanup by a user who may list and delete pods but not watch them: a true report of what went", func(t *testing.T) {
		s := newScenario(t, cp, "nowatch")
		ns := s.addNodes(nodes("nw", 2, "linux", "hang"))
		runDiagWith(t, s.kubeconfig, func(p *os.Process) {
			if !s.waitPods(2, 30*time.Second) {
				t.Error("pods not made")
			}
			_ = p.Kill()
		}, s.args(filepath.Join(t.TempDir(), "out"), "--nodes", names(ns), "--node-timeout", "60s")...)
		kc := s.userWith("nw-cleaner", []string{"list", "delete"}, []string{"get"})
		r := runDiag(t, kc, "collect", "--cluster", "--cleanup", "--namespace", s.ns)
		t.Logf("exit %d:\n%s", r.code, r.stderr)
		left := cp.PodsLeft()
		t.Logf("on the server after: %v", left)
		deleted := 0
		for _, e := range s.audit("nw-cleaner") {
			if e.Verb == "delete" && e.Resource() == "pods" && e.ResponseStatus.Code/100 == 2 {
				deleted++
			}
		}
		switch {
		case r.code == 2 && strings.Contains(lastLine(r.stderr), "watch"):
			// Refused up front, naming the permission.
		case len(left) == 0 && (r.code != 0 || strings.Count(r.stderr, "deleted pod") != 2 || strings.Contains(r.stderr, "still Terminating")):
			t.Errorf("both pods deleted (%d DELETEs answered 2xx) and gone, diag says otherwise: exit %d", deleted, r.code)
		case len(left) > 0 && r.code == 0:
			t.Errorf("pods left, exit 0")
		}
		cp.ForceDeleteAll()
	})

	// A namespace being deleted refuses every pod alike, as a missing one
	// does: the run stops at its first answer, not taking it for a refusal
	// of the pod spec tried twice per OS with every node listed as
	// failed.
	t.Run("a namespace being terminated stops the run at the first refusal, as a missing namespace does", func(t *testing.T) {
		s := newScenario(t, cp, "doomed2")
		ns := s.addNodes(nodes("d2-win", 3, "windows", ""), nodes("d2-lin", 3, "linux", ""))
		if _, err := cp.Do(cp.Admin, http.MethodDelete, "/api/v1/namespaces/doomed2", "", nil); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second)
		r := s.collect("", "--nodes", names(ns), "--parallel", "1")
		creates := createsSent(s.audit(s.user))
		if r.code != 2 || creates != 1 || !strings.Contains(lastLine(r.stderr), "being terminated") {
			t.Errorf("exit %d, %d pod creations sent (want 2 and 1):\n%s", r.code, creates, r.stderr)
		}
		s.noPodsLeft()
	})
}
