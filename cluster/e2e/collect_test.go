package e2e

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wincni/diag/cluster"
	"github.com/wincni/diag/cluster/clustertest/realcluster"
)

// TestRealAPIServer runs the scenarios against one control plane with
// --allow-privileged, each in its own namespace with its own nodes.
func TestRealAPIServer(t *testing.T) {
	cp := startPlane(t, realcluster.Options{})

	t.Run("every node collected, every pod gone, as the audit log says", func(t *testing.T) {
		s := newScenario(t, cp, "ok")
		ns := s.addNodes(nodes("ok-win", 2, "windows", ""), nodes("ok-lin", 2, "linux", ""))
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

	t.Run("a partial bundle is kept; a failing and a hanging collector are reported", func(t *testing.T) {
		s := newScenario(t, cp, "mixed")
		ns := []realcluster.NodeSpec{
			{Name: "mx-partial", OS: "windows", Behave: "partial"},
			{Name: "mx-fail", OS: "windows", Behave: "fail"},
			{Name: "mx-hang", OS: "linux", Behave: "hang"},
		}
		s.addNodes(ns)
		r := s.collect("", "--nodes", names(ns), "--parallel", "3", "--node-timeout", "15s")
		if r.report == nil {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		got := map[string]cluster.NodeResult{}
		for _, n := range r.report.Nodes {
			got[n.Name] = n
		}
		if n := got["mx-partial"]; n.Status != cluster.StatusPartial || n.Bundle == "" {
			t.Errorf("a whole bundle with exit status 3 is kept as partial: %+v", n)
		}
		if n := got["mx-fail"]; n.Status != cluster.StatusFailed || !strings.Contains(n.Reason, "access is denied") {
			t.Errorf("the collector's own words: %+v", n)
		}
		if n := got["mx-hang"]; n.Status != cluster.StatusTimeout {
			t.Errorf("hang: %+v", n)
		}
		if r.code != 3 || !strings.Contains(lastLine(r.stderr), "1 of 3 node(s) gave a bundle") {
			t.Errorf("exit %d: %s", r.code, lastLine(r.stderr))
		}
		s.noPodsLeft()
	})

	t.Run("pods that never start: exit 3, Terminating pods named, --cleanup --force removes them", func(t *testing.T) {
		s := newScenario(t, cp, "nokubelet")
		ns := s.addNodes([]realcluster.NodeSpec{{Name: "nk-1", OS: "windows", NoKubelet: true}, {Name: "nk-2", OS: "linux", NoKubelet: true}})
		r := s.collect("", "--nodes", names(ns), "--node-timeout", "5s")
		if r.code != 3 || r.report == nil || r.report.Count(cluster.StatusTimeout) != 2 {
			t.Fatalf("exit %d (want 3: nodes without a bundle): %s\n%+v", r.code, r.stderr, r.report)
		}
		left := cp.PodsLeft()
		if len(left) != 2 || len(r.report.Stuck()) != 2 {
			t.Errorf("on the server: %v; reported Terminating: %v", left, r.report.Stuck())
		}
		for _, l := range left {
			if !strings.Contains(l, "Terminating") {
				t.Errorf("%s: not deleted", l)
			}
		}
		if !strings.Contains(r.stderr, "2 pod(s) left Terminating") || !strings.Contains(r.stderr, "--cleanup --force --namespace nokubelet") {
			t.Errorf("the Terminating pods and the command that removes them are not said:\n%s", r.stderr)
		}
		// The command diag printed removes them.
		c := runDiag(t, s.kubeconfig, "collect", "--cluster", "--cleanup", "--force", "--namespace", "nokubelet")
		if c.code != 0 || strings.Count(c.stderr, "without its kubelet's confirmation") != 2 {
			t.Errorf("cleanup --force: exit %d\n%s", c.code, c.stderr)
		}
		s.noPodsLeft()
	})

	t.Run("--print-rbac for a second namespace binds both", func(t *testing.T) {
		newScenario(t, cp, "first")
		newScenario(t, cp, "second")
		for _, sa := range []string{"system:serviceaccount:first:diag", "system:serviceaccount:second:diag"} {
			if !cp.Allowed(sa, "list", "nodes", "") {
				t.Errorf("%s may not list nodes after --print-rbac for both namespaces was applied", sa)
			}
		}
	})

	t.Run("a user without watch: stopped before any pod, every missing permission named", func(t *testing.T) {
		s := newScenario(t, cp, "noget")
		ns := s.addNodes(nodes("ng", 6, "windows", ""))
		kc := s.userWith("bob-noget", []string{"create", "list", "delete"}, []string{"create", "get"})
		r := s.collect(kc, "--nodes", names(ns), "--parallel", "6")
		if r.code != 2 || !strings.Contains(lastLine(r.stderr), "may not watch pods in namespace noget") || strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 {
			t.Errorf("exit %d, want 2 and one line naming watch:\n%s", r.code, r.stderr)
		}
		if created := podCreates(s.audit("bob-noget")); len(created) != 0 {
			t.Errorf("pods made before the refusal: %v", created)
		}
		s.noPodsLeft()
	})

	t.Run("Ctrl-C while pods are being made leaves none", func(t *testing.T) {
		s := newScenario(t, cp, "sigint")
		ns := s.addNodes(nodes("si", 12, "windows", "hang"))
		for _, after := range []time.Duration{150 * time.Millisecond, 400 * time.Millisecond, 1500 * time.Millisecond} {
			dir := t.TempDir()
			r := runDiagWith(t, s.kubeconfig, func(p *os.Process) {
				time.Sleep(after)
				_ = p.Signal(os.Interrupt)
			}, "collect", "--cluster", "--namespace", s.ns, "--image", "registry.example/diag:e2e", "--output-dir", dir,
				"--nodes", names(ns), "--parallel", "6", "--node-timeout", "60s")
			if r.code == 0 {
				t.Errorf("interrupted after %s: exit 0", after)
			}
			s.noPodsLeft()
			if rep := readReport(t, dir); rep != nil && len(rep.PodsLeft()) > 0 {
				t.Errorf("after %s: cluster.json says pods were left: %v", after, rep.PodsLeft())
			}
		}
	})

	t.Run("Pod Security baseline: exit 2 quoting the server, every node's reason too", func(t *testing.T) {
		s := newScenario(t, cp, "baseline")
		if err := cp.Apply(cp.Admin, `apiVersion: v1
kind: Namespace
metadata:
  name: baseline
  labels: {pod-security.kubernetes.io/enforce: baseline}
`); err != nil {
			t.Fatal(err)
		}
		ns := s.addNodes(nodes("bl-win", 3, "windows", ""), nodes("bl-lin", 2, "linux", ""))
		doubled := regexp.MustCompile(`(create pods: .*){2}`)
		// One at a time, and all at once (the refusal arrives while the
		// other creates are in flight).
		for _, parallel := range []string{"1", "5"} {
			r := s.collect("", "--nodes", names(ns), "--parallel", parallel)
			if r.code != 2 || !strings.Contains(lastLine(r.stderr), `violates PodSecurity "baseline:latest"`) {
				t.Errorf("--parallel %s: exit %d: %s", parallel, r.code, lastLine(r.stderr))
			}
			if r.report == nil {
				t.Fatal("no cluster.json")
			}
			for _, n := range r.report.Nodes {
				if !strings.Contains(n.Reason, `violates PodSecurity "baseline:latest": `) || !strings.Contains(n.Reason, "host namespaces (hostNetwork=true") ||
					strings.Contains(n.Reason, "permission denied") || doubled.MatchString(n.Reason) {
					t.Errorf("--parallel %s: %s: %s", parallel, n.Name, n.Reason)
				}
			}
			s.noPodsLeft()
		}
	})

	t.Run("an admission policy refusing HostProcess stops the Windows nodes only", func(t *testing.T) {
		s := newScenario(t, cp, "vap")
		s.policy("no-hostprocess", noHostProcess, "HostProcess pods are not allowed in this cluster (policy no-hostprocess)", realcluster.ProbePod("windows", ""))
		ns := s.addNodes(nodes("vp-win", 8, "windows", ""), nodes("vp-lin", 8, "linux", ""))
		r := s.collect("", "--nodes", names(ns), "--parallel", "6", "--node-timeout", "60s")
		if r.report == nil {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		for _, n := range r.report.Nodes {
			switch {
			case n.OS == "linux" && n.Status != cluster.StatusOK:
				t.Errorf("%s: %s: %s", n.Name, n.Status, n.Reason)
			case n.OS == "windows" && (n.Status != cluster.StatusFailed || !strings.Contains(n.Reason, "policy no-hostprocess") || strings.Contains(n.Reason, "permission denied")):
				t.Errorf("%s: %s: %s", n.Name, n.Status, n.Reason)
			}
		}
		if r.code != 3 || !strings.Contains(lastLine(r.stderr), "8 of 16 node(s) gave a bundle") || !strings.Contains(r.stdout, `"schemaVersion"`) {
			t.Errorf("exit %d, want 3 with the Linux nodes analyzed: %s", r.code, lastLine(r.stderr))
		}
		s.noPodsLeft()
	})

	t.Run("a namespace that does not exist: exit 2, one line, no pod", func(t *testing.T) {
		s := newScenario(t, cp, "present")
		ns := s.addNodes(nodes("nn", 2, "windows", ""))
		admin, err := cp.Kubeconfig("root", "system:masters")
		if err != nil {
			t.Fatal(err)
		}
		for _, kc := range []string{s.kubeconfig, admin} {
			r := runDiag(t, kc, "collect", "--cluster", "--namespace", "nope", "--image", "registry.example/diag:e2e", "--output-dir", t.TempDir(), "--nodes", names(ns))
			if r.code != 2 || !strings.Contains(lastLine(r.stderr), "nope") {
				t.Errorf("exit %d:\n%s", r.code, r.stderr)
			}
		}
		s.noPodsLeft()
	})

	t.Run("--image empty: refused before any request", func(t *testing.T) {
		s := newScenario(t, cp, "noimage")
		before := len(s.audit(s.user))
		r := runDiag(t, s.kubeconfig, "collect", "--cluster", "--namespace", s.ns, "--image", "", "--output-dir", t.TempDir())
		if r.code != 2 || !strings.Contains(r.stderr, "--image") {
			t.Errorf("exit %d: %s", r.code, r.stderr)
		}
		if after := len(s.audit(s.user)); after != before {
			t.Errorf("%d requests sent", after-before)
		}
	})

	t.Run("--cleanup without delete: nothing said deleted, exit 2", func(t *testing.T) {
		s := newScenario(t, cp, "cleanup")
		ns := s.addNodes(nodes("cu", 3, "windows", ""))
		// A run killed (SIGKILL) after its pods were made leaves them.
		dir := t.TempDir()
		runDiagWith(t, s.kubeconfig, func(p *os.Process) {
			deadline := time.Now().Add(30 * time.Second)
			for time.Now().Before(deadline) {
				if pods, _ := cp.Pods(); len(pods) >= 3 {
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
			_ = p.Kill()
		}, "collect", "--cluster", "--namespace", s.ns, "--image", "registry.example/diag:e2e", "--output-dir", dir, "--nodes", names(ns), "--parallel", "3")
		if pods, _ := cp.Pods(); len(pods) != 3 {
			t.Fatalf("the killed run left %d pods, want 3", len(pods))
		}
		kc := s.userWith("carol-nodelete", []string{"list", "watch"}, []string{"get"})
		r := runDiag(t, kc, "collect", "--cluster", "--cleanup", "--namespace", s.ns)
		if r.code != 2 || strings.Contains(r.stderr, "deleted pod") || !strings.Contains(lastLine(r.stderr), "3 pod(s) not deleted") {
			t.Errorf("exit %d:\n%s", r.code, r.stderr)
		}
		r = runDiag(t, s.kubeconfig, "collect", "--cluster", "--cleanup", "--namespace", s.ns)
		if r.code != 0 || strings.Count(r.stderr, "deleted pod") != 3 {
			t.Errorf("exit %d:\n%s", r.code, r.stderr)
		}
		s.noPodsLeft()
	})

	t.Run("--max-bundle-size: the transfer stops, the message says what arrived", func(t *testing.T) {
		s := newScenario(t, cp, "toolarge")
		ns := s.addNodes(nodes("tl", 1, "linux", ""))
		r := s.collect("", "--nodes", names(ns), "--max-bundle-size", "1KiB")
		if r.report == nil || len(r.report.Nodes) != 1 {
			t.Fatalf("exit %d: %s", r.code, r.stderr)
		}
		n := r.report.Nodes[0]
		if n.Status != cluster.StatusFailed || !strings.Contains(n.Reason, "over the limit of 1024 bytes") || strings.Contains(n.Reason, "after 0 bytes") {
			t.Errorf("%+v", n)
		}
		s.noPodsLeft()
	})
}

// TestAPIServerWithoutAllowPrivileged: a server that refuses every
// HostProcess and host-network pod stops the run at the first refusal.
func TestAPIServerWithoutAllowPrivileged(t *testing.T) {
	cp := startPlane(t, realcluster.Options{NoPrivileged: true})
	s := newScenario(t, cp, "diag")
	ns := s.addNodes(nodes("np-win", 3, "windows", ""), nodes("np-lin", 3, "linux", ""))
	win := names(ns[:3])
	r := s.collect("", "--nodes", win, "--parallel", "1")
	if r.code != 2 || !strings.Contains(lastLine(r.stderr), "--allow-privileged") || !strings.Contains(lastLine(r.stderr), "hostProcess") {
		t.Errorf("exit %d: %s", r.code, lastLine(r.stderr))
	}
	// Two alike refusals, then the other Windows nodes are not tried.
	creates := createsSent(s.audit(s.user))
	if creates != 2 {
		t.Errorf("%d pod creations sent, want 2", creates)
	}
	for _, n := range r.report.Nodes {
		if n.Status != cluster.StatusFailed || !strings.Contains(n.Reason, "hostProcess") {
			t.Errorf("%s: %s: %s", n.Name, n.Status, n.Reason)
		}
	}
	s.noPodsLeft()
	// Linux pods (host network, not privileged) are admitted: those nodes
	// are collected and analyzed, the run is partial.
	r = s.collect("", "--nodes", names(ns), "--parallel", "2")
	if r.code != 3 || r.report == nil || r.report.Count(cluster.StatusOK) != 3 || !strings.Contains(lastLine(r.stderr), "3 of 6 node(s) gave a bundle") {
		t.Errorf("exit %d: %s", r.code, r.stderr)
	}
	s.noPodsLeft()
}

// TestAPIServerLoad measures what a collection costs the API server, from
// its audit log: requests per node and watches, for 50 nodes at
// --parallel 10 (DIAG_TESTCLUSTER_LOAD=200 for more).
func TestAPIServerLoad(t *testing.T) {
	n := 50
	if v := os.Getenv("DIAG_TESTCLUSTER_LOAD"); v != "" {
		if _, err := fmt.Sscan(v, &n); err != nil || n < 1 {
			t.Fatalf("DIAG_TESTCLUSTER_LOAD=%q: a node count", v)
		}
	}
	cp := startPlane(t, realcluster.Options{})
	s := newScenario(t, cp, "diag")
	s.addNodes(nodes("ld-win", n/2, "windows", ""), nodes("ld-lin", n-n/2, "linux", ""))
	start := time.Now()
	r := s.collect("", "--parallel", "10", "--node-timeout", "5m")
	took := time.Since(start)
	if r.report == nil || r.report.Count(cluster.StatusOK) != n {
		t.Fatalf("exit %d: %s", r.code, lastLine(r.stderr))
	}
	s.noPodsLeft()
	byKind := map[string]int{}
	total := 0
	for _, e := range s.audit(s.user) {
		byKind[e.Verb+" "+e.Resource()]++
		total++
		if e.ResponseStatus.Code == http.StatusTooManyRequests {
			t.Errorf("throttled: %s %s", e.Verb, e.Resource())
		}
	}
	perNode := float64(total) / float64(n)
	t.Logf("%d nodes at --parallel 10 in %.1fs: %d requests, %.2f per node: %v", n, took.Seconds(), total, perNode, byKind)
	if byKind["get pods"] > 0 || byKind["watch pods"] > 3 || byKind["list pods"] > 3 {
		t.Errorf("pods are followed by one list and watch: %v", byKind)
	}
	// create, exec, delete per node; the list of nodes, the preflight and
	// the run's list and watch once.
	if perNode > 4 {
		t.Errorf("%.2f requests per node", perNode)
	}
}
