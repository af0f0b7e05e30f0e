//go:build unix

package e2e

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wincni/diag/cluster"
	"github.com/wincni/diag/cluster/clustertest/realcluster"
)

// TestRefusalKindsAndMidRunChanges: a quota, a namespace being
// terminated, a LimitRange, an admission webhook that is down and
// credentials the server does not accept; permissions taken away mid-run,
// a pod deleted by someone else, and signals at other phases. Each ends
// with no pod of diag's left, diag's lines and cluster.json agreeing with
// each other and with the audit log, and the exit status the help
// documents.
func TestRefusalKindsAndMidRunChanges(t *testing.T) {
	cp := startPlane(t, realcluster.Options{})

	t.Run("exec permission taken away mid-run: the run stops, every pod the server made is gone", func(t *testing.T) {
		s := newScenario(t, cp, "rvexec")
		ns := s.addNodes(nodes("rx", 12, "linux", ""))
		user := "rv-exec-user"
		kc := s.twoRoles(user)
		dir := filepath.Join(t.TempDir(), "out")
		// After the access review (it passed), before the first exec.
		r := runDiagWith(t, kc, s.dropExec(user, 1), s.args(dir, "--nodes", names(ns), "--parallel", "6", "--node-timeout", "60s")...)
		rep := readReport(t, dir)
		t.Logf("exit %d:\n%s", r.code, r.stderr)
		if r.code != 2 && r.code != 3 {
			t.Errorf("exit %d", r.code)
		}
		s.checkEnd(user, r, rep)
	})

	t.Run("ResourceQuota of 2 pods, 6 nodes: the server's words, no permission hint, no pod left", func(t *testing.T) {
		s := newScenario(t, cp, "quota")
		if _, err := cp.Do(cp.Admin, http.MethodPost, "/api/v1/namespaces/quota/resourcequotas", "application/json",
			[]byte(`{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"two-pods"},"spec":{"hard":{"pods":"2"}}}`)); err != nil {
			t.Fatal(err)
		}
		ns := s.addNodes(nodes("qw", 3, "windows", "hang"), nodes("ql", 3, "linux", "hang"))
		s.quotaStatus("two-pods", 2)
		r := s.collect("", "--nodes", names(ns), "--parallel", "6", "--node-timeout", "8s")
		t.Logf("exit %d:\n%s", r.code, r.stderr)
		if r.report == nil {
			t.Fatalf("no cluster.json")
		}
		for _, n := range r.report.Nodes {
			if strings.Contains(n.Reason, "permission denied") || strings.Contains(n.Reason, "--print-rbac") {
				t.Errorf("%s: %s: %s", n.Name, n.Status, n.Reason)
			}
		}
		if r.code != 3 && r.code != 2 {
			t.Errorf("exit %d", r.code)
		}
		s.checkEnd(s.user, r, r.report)
	})

	t.Run("a namespace being terminated: exit 2, one line quoting the server, no pod", func(t *testing.T) {
		s := newScenario(t, cp, "doomed")
		ns := s.addNodes(nodes("dm-win", 3, "windows", ""), nodes("dm-lin", 3, "linux", ""))
		// No namespace controller runs: the namespace stays Terminating.
		if _, err := cp.Do(cp.Admin, http.MethodDelete, "/api/v1/namespaces/doomed", "", nil); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second)
		r := s.collect("", "--nodes", names(ns), "--parallel", "1")
		t.Logf("exit %d:\n%s", r.code, r.stderr)
		if r.code != 2 || !strings.Contains(lastLine(r.stderr), "being terminated") || strings.Contains(lastLine(r.stderr), "permission denied") {
			t.Errorf("exit %d (want 2 naming the terminating namespace): %s", r.code, lastLine(r.stderr))
		}
		creates := createsSent(s.audit(s.user))
		t.Logf("%d creates sent", creates)
		s.checkEnd(s.user, r, r.report)
	})

	t.Run("a LimitRange no collector pod meets: exit 2 quoting it", func(t *testing.T) {
		s := newScenario(t, cp, "limits")
		if _, err := cp.Do(cp.Admin, http.MethodPost, "/api/v1/namespaces/limits/limitranges", "application/json",
			[]byte(`{"apiVersion":"v1","kind":"LimitRange","metadata":{"name":"big"},"spec":{"limits":[{"type":"Container","min":{"memory":"2Gi"}}]}}`)); err != nil {
			t.Fatal(err)
		}
		ns := s.addNodes(nodes("lr-win", 2, "windows", ""), nodes("lr-lin", 2, "linux", ""))
		time.Sleep(time.Second)
		r := s.collect("", "--nodes", names(ns), "--parallel", "4")
		t.Logf("exit %d:\n%s", r.code, r.stderr)
		if r.code != 2 || !strings.Contains(lastLine(r.stderr), "minimum memory") {
			t.Errorf("exit %d: %s", r.code, lastLine(r.stderr))
		}
		s.checkEnd(s.user, r, r.report)
	})

	t.Run("an admission webhook that is down: each node's reason quotes it, exit 3, no pod", func(t *testing.T) {
		s := newScenario(t, cp, "hookdown")
		hook := `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingWebhookConfiguration","metadata":{"name":"down"},
"webhooks":[{"name":"down.example.com","admissionReviewVersions":["v1"],"sideEffects":"None","failurePolicy":"Fail","timeoutSeconds":2,
"clientConfig":{"url":"https://127.0.0.1:1/validate"},
"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"hookdown"}},
"rules":[{"apiGroups":[""],"apiVersions":["v1"],"operations":["CREATE"],"resources":["pods"]}]}]}`
		if _, err := cp.Do(cp.Admin, http.MethodPost, "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", "application/json", []byte(hook)); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			_, _ = cp.Do(cp.Admin, http.MethodDelete, "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/down", "", nil)
		})
		ns := s.addNodes(nodes("wh-win", 2, "windows", ""), nodes("wh-lin", 2, "linux", ""))
		if err := cp.WaitRefused("hookdown", realcluster.ProbePod("linux", ""), "down.example.com"); err != nil {
			t.Fatal(err)
		}
		r := s.collect("", "--nodes", names(ns), "--parallel", "4", "--node-timeout", "60s")
		t.Logf("exit %d:\n%s", r.code, r.stderr)
		if r.report == nil {
			t.Fatal("no cluster.json")
		}
		for _, n := range r.report.Nodes {
			if n.Status == cluster.StatusOK || !strings.Contains(n.Reason, "down.example.com") {
				t.Errorf("%s: %s: %s", n.Name, n.Status, n.Reason)
			}
		}
		if r.code == 1 || r.code == 0 {
			t.Errorf("exit %d", r.code)
		}
		s.checkEnd(s.user, r, r.report)
	})

	t.Run("--parallel 1 and 64 over Windows and Linux nodes", func(t *testing.T) {
		s := newScenario(t, cp, "par")
		ns := s.addNodes(nodes("pw", 3, "windows", ""), nodes("pl", 3, "linux", ""))
		for _, p := range []string{"1", "64"} {
			r := s.collect("", "--nodes", names(ns), "--parallel", p, "--node-timeout", "60s")
			if r.report == nil || r.report.Count(cluster.StatusOK) != 6 || (r.code != 0 && r.code != 3) || strings.Contains(r.stderr, "collection is partial") {
				t.Errorf("--parallel %s: exit %d:\n%s", p, r.code, r.stderr)
			}
			s.noPodsLeft()
			s.checkAudit(s.user, r.report)
		}
	})

	t.Run("Pending pods at --node-timeout beside collected nodes: exit 3, the Terminating ones named as the server has them", func(t *testing.T) {
		s := newScenario(t, cp, "pend")
		ns := s.addNodes([]realcluster.NodeSpec{{Name: "pd-ok-w", OS: "windows"}, {Name: "pd-ok-l", OS: "linux"}, {Name: "pd-nk-w", OS: "windows", NoKubelet: true}, {Name: "pd-nk-l", OS: "linux", NoKubelet: true}})
		r := s.collect("", "--nodes", names(ns), "--parallel", "4", "--node-timeout", "6s")
		t.Logf("exit %d:\n%s", r.code, r.stderr)
		if r.report == nil || r.code != 3 || r.report.Count(cluster.StatusOK) != 2 || r.report.Count(cluster.StatusTimeout) != 2 {
			t.Fatalf("exit %d: %+v", r.code, r.report)
		}
		left := cp.PodsLeft()
		if len(left) != 2 || len(r.report.Stuck()) != 2 {
			t.Errorf("server: %v; cluster.json: %v", left, r.report.Stuck())
		}
		s.saidAsWritten(r, r.report)
		s.checkAudit(s.user, r.report)
		// Without --force: the same two named, exit 3, the --force hint.
		c := runDiag(t, s.kubeconfig, "collect", "--cluster", "--cleanup", "--namespace", s.ns)
		t.Logf("cleanup: exit %d:\n%s", c.code, c.stderr)
		if c.code != 3 || strings.Count(c.stderr, "still Terminating") < 2 || strings.Contains(c.stderr, "deleted pod") {
			t.Errorf("cleanup without --force: exit %d", c.code)
		}
		c = runDiag(t, s.kubeconfig, "collect", "--cluster", "--cleanup", "--force", "--namespace", s.ns)
		if c.code != 0 {
			t.Errorf("cleanup --force: exit %d:\n%s", c.code, c.stderr)
		}
		s.noPodsLeft()
	})

	t.Run("SIGKILL while pods run, one on a node without a kubelet: --cleanup removes one and names the other, --force the rest", func(t *testing.T) {
		s := newScenario(t, cp, "killed")
		ns := s.addNodes([]realcluster.NodeSpec{{Name: "kl-nk", OS: "linux", NoKubelet: true}, {Name: "kl-hang", OS: "windows", Behave: "hang"}})
		dir := filepath.Join(t.TempDir(), "out")
		runDiagWith(t, s.kubeconfig, func(p *os.Process) {
			if !s.waitPods(2, 30*time.Second) {
				t.Error("pods not made")
			}
			time.Sleep(time.Second)
			_ = p.Kill()
		}, s.args(dir, "--nodes", names(ns), "--node-timeout", "60s")...)
		c := runDiag(t, s.kubeconfig, "collect", "--cluster", "--cleanup", "--namespace", s.ns)
		t.Logf("cleanup: exit %d:\n%s", c.code, c.stderr)
		if c.code != 3 || strings.Count(c.stderr, "deleted pod") != 1 || strings.Count(c.stderr, "is still Terminating") != 1 || !strings.Contains(c.stderr, "1 of 2 pod(s) gone") {
			t.Errorf("cleanup: exit %d", c.code)
		}
		c = runDiag(t, s.kubeconfig, "collect", "--cluster", "--cleanup", "--force", "--namespace", s.ns)
		if c.code != 0 || !strings.Contains(c.stderr, "without its kubelet's confirmation") {
			t.Errorf("cleanup --force: exit %d:\n%s", c.code, c.stderr)
		}
		s.noPodsLeft()
	})

	t.Run("a collector pod deleted by someone else mid-collection: the others collected, exit 3, nothing said left", func(t *testing.T) {
		s := newScenario(t, cp, "gone")
		ns := s.addNodes([]realcluster.NodeSpec{{Name: "gn-hang", OS: "windows", Behave: "hang"}, {Name: "gn-ok", OS: "linux"}})
		dir := filepath.Join(t.TempDir(), "out")
		r := runDiagWith(t, s.kubeconfig, func(*os.Process) {
			deadline := time.Now().Add(30 * time.Second)
			for time.Now().Before(deadline) {
				pods, _ := cp.Pods()
				for _, p := range pods {
					if p.Metadata.Namespace == s.ns && strings.HasPrefix(p.Metadata.Name, "diag-gn-hang-") && p.Status.Phase == "Running" {
						time.Sleep(time.Second) // the exec runs
						if _, err := cp.Do(cp.Admin, http.MethodDelete, "/api/v1/namespaces/gone/pods/"+p.Metadata.Name, "", nil); err != nil {
							t.Error(err)
						}
						return
					}
				}
				time.Sleep(50 * time.Millisecond)
			}
			t.Error("the hanging node's pod never ran")
		}, s.args(dir, "--nodes", names(ns), "--node-timeout", "10s")...)
		rep := readReport(t, dir)
		t.Logf("exit %d:\n%s", r.code, r.stderr)
		if r.code != 3 || rep == nil || rep.Count(cluster.StatusOK) != 1 || len(rep.PodsLeft()) != 0 {
			t.Errorf("exit %d: %+v", r.code, rep)
		}
		// Its delete meets 404 (someone else deleted it): gone all the same.
		s.noPodsLeft()
		s.saidAsWritten(r, rep)
	})

	t.Run("credentials the server does not accept: exit 2, one line, no pod", func(t *testing.T) {
		s := newScenario(t, cp, "badcred")
		kc := filepath.Join(t.TempDir(), "kubeconfig")
		conf := fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters:\n- name: t\n  cluster: {server: %q, insecure-skip-tls-verify: true}\nusers:\n- name: u\n  user: {token: not-a-token}\ncontexts:\n- name: t\n  context: {cluster: t, user: u}\ncurrent-context: t\n", cp.Server)
		if err := os.WriteFile(kc, []byte(conf), 0o600); err != nil {
			t.Fatal(err)
		}
		r := runDiag(t, kc, s.args(t.TempDir(), "--nodes", "any")...)
		if r.code != 2 || strings.Count(strings.TrimSpace(r.stderr), "\n") > 0 || !strings.Contains(r.stderr, "credentials") {
			t.Errorf("exit %d:\n%s", r.code, r.stderr)
		}
		s.noPodsLeft()
	})

	t.Run("creates given up in flight on nodes without a kubelet: every pod the server keeps Terminating is named in cluster.json", func(t *testing.T) {
		s := newScenario(t, cp, "inflight")
		ns := append(nodes("if-w", 3, "windows", ""), nodes("if-l", 3, "linux", "")...)
		for i := range ns {
			ns[i].NoKubelet = true
		}
		s.addNodes(ns)
		for _, to := range []string{"3ms", "15ms", "40ms"} {
			r := s.collect("", "--nodes", names(ns), "--parallel", "6", "--node-timeout", to)
			if r.report == nil {
				t.Fatalf("%s: exit %d: %s", to, r.code, r.stderr)
			}
			server := map[string]bool{}
			for _, l := range cp.PodsLeft() {
				if strings.HasPrefix(l, s.ns+"/") {
					server[strings.Fields(strings.TrimPrefix(l, s.ns+"/"))[0]] = true
				}
			}
			said := map[string]bool{}
			for _, p := range r.report.PodsLeft() {
				said[strings.TrimPrefix(p, s.ns+"/")] = true
			}
			for p := range server {
				if !said[p] {
					t.Errorf("%s: pod %s is on the server, cluster.json does not name it left", to, p)
				}
			}
			for p := range said {
				if !server[p] {
					t.Errorf("%s: cluster.json names pod %s left, the server has no such pod", to, p)
				}
			}
			if r.code != 3 {
				t.Errorf("%s: exit %d: %s", to, r.code, lastLine(r.stderr))
			}
			t.Logf("%s: exit %d, %d pods made, %d left Terminating", to, r.code, len(podCreates(s.audit(s.user))), len(server))
			s.checkAudit(s.user, r.report)
			s.saidAsWritten(r, r.report)
			cp.ForceDeleteAll()
		}
	})

	t.Run("--cleanup in one namespace leaves another's pods; Ctrl-C during its wait names the pod Terminating, exit 3", func(t *testing.T) {
		a := newScenario(t, cp, "cla")
		b := newScenario(t, cp, "clb")
		na := []realcluster.NodeSpec{{Name: "cla-nk", OS: "linux", NoKubelet: true}, {Name: "cla-hang", OS: "windows", Behave: "hang"}}
		nb := []realcluster.NodeSpec{{Name: "clb-hang", OS: "linux", Behave: "hang"}}
		a.addNodes(na, nb)
		for _, c := range []struct {
			s  *scenario
			ns []realcluster.NodeSpec
		}{{a, na}, {b, nb}} {
			runDiagWith(t, c.s.kubeconfig, func(p *os.Process) {
				if !c.s.waitPods(len(c.ns), 30*time.Second) {
					t.Error("pods not made")
				}
				time.Sleep(500 * time.Millisecond)
				_ = p.Kill()
			}, c.s.args(filepath.Join(t.TempDir(), "out"), "--nodes", names(c.ns), "--node-timeout", "60s")...)
		}
		r := runDiagWith(t, a.kubeconfig, func(p *os.Process) {
			time.Sleep(4 * time.Second)
			_ = p.Signal(os.Interrupt)
		}, "collect", "--cluster", "--cleanup", "--namespace", "cla")
		t.Logf("cleanup, Ctrl-C: exit %d:\n%s", r.code, r.stderr)
		if r.code != 3 || !strings.Contains(r.stderr, "deleted pod cla/diag-cla-hang-") || !strings.Contains(r.stderr, "is still Terminating") {
			t.Errorf("exit %d", r.code)
		}
		for _, e := range cp.Audit(agent) {
			if e.ObjectRef.Namespace == "clb" && e.Verb == "delete" {
				t.Errorf("cleanup of cla deleted %s in clb", e.ObjectRef.Name)
			}
		}
		pods, _ := cp.Pods()
		inB := 0
		for _, p := range pods {
			if p.Metadata.Namespace == "clb" && p.Metadata.DeletionTimestamp == nil {
				inB++
			}
		}
		if inB != 1 {
			t.Errorf("clb's pod: %d there", inB)
		}
		cp.ForceDeleteAll()
	})
}
