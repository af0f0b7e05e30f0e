//go:build unix

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wincni/diag/cluster"
	"github.com/wincni/diag/cluster/clustertest/realcluster"
)

// More refusal kinds, permissions taken away mid-run and signals at other
// phases, against the real API server. Each ends with no pod of diag's
// left, diag's lines and cluster.json agreeing with each other and with
// the audit log, and the exit status the help documents.
func TestReview2(t *testing.T) {
	cp := startPlane(t, realcluster.Options{})

	t.Run("exec permission taken away mid-run: the run stops, every pod the server made is gone", func(t *testing.T) {
		s := newScenario(t, cp, "rvexec")
		ns := nodes("rx", 12, "linux", "")
		if err := cp.AddNodes(ns...); err != nil {
			t.Fatal(err)
		}
		user := "rv-exec-user"
		s.twoRoles(user)
		kc, err := cp.Kubeconfig(user)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), "out")
		r := runDiagCtx(t, context.Background(), kc, func(*exec.Cmd) {
			// After the access review (it passed), before the first exec.
			if !s.waitPods(1, 30*time.Second) {
				t.Error("no pod made")
			}
			if _, err := cp.Do(cp.Admin, http.MethodDelete, "/apis/rbac.authorization.k8s.io/v1/namespaces/rvexec/rolebindings/"+user+"-exec", "", nil); err != nil {
				t.Error(err)
			}
		}, s.args(dir, "--nodes", names(ns), "--parallel", "6", "--node-timeout", "60s")...)
		rep := readReport(t, dir)
		t.Logf("exit %d:\n%s", r.code, r.stderr)
		if r.code != 2 && r.code != 3 {
			t.Errorf("exit %d", r.code)
		}
		s.noPodsLeft()
		s.checkAudit(user, rep)
		s.saidAsWritten(r, rep)
	})

	t.Run("ResourceQuota of 2 pods, 6 nodes: the server's words, no permission hint, no pod left", func(t *testing.T) {
		s := newScenario(t, cp, "quota")
		if _, err := cp.Do(cp.Admin, http.MethodPost, "/api/v1/namespaces/quota/resourcequotas", "application/json",
			[]byte(`{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"two-pods"},"spec":{"hard":{"pods":"2"}}}`)); err != nil {
			t.Fatal(err)
		}
		ns := append(nodes("qw", 3, "windows", "hang"), nodes("ql", 3, "linux", "hang")...)
		if err := cp.AddNodes(ns...); err != nil {
			t.Fatal(err)
		}
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
		s.noPodsLeft()
		s.checkAudit(s.user, r.report)
		s.saidAsWritten(r, r.report)
	})

	t.Run("a namespace being terminated: exit 2, one line quoting the server, no pod", func(t *testing.T) {
		s := newScenario(t, cp, "doomed")
		ns := append(nodes("dm-win", 3, "windows", ""), nodes("dm-lin", 3, "linux", "")...)
		if err := cp.AddNodes(ns...); err != nil {
			t.Fatal(err)
		}
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
		creates := 0
		for _, e := range s.audit(s.user) {
			if e.Verb == "create" && e.Resource() == "pods" {
				creates++
			}
		}
		t.Logf("%d creates sent", creates)
		s.noPodsLeft()
		s.checkAudit(s.user, r.report)
		s.saidAsWritten(r, r.report)
	})

	t.Run("a LimitRange no collector pod meets: exit 2 quoting it", func(t *testing.T) {
		s := newScenario(t, cp, "limits")
		if _, err := cp.Do(cp.Admin, http.MethodPost, "/api/v1/namespaces/limits/limitranges", "application/json",
			[]byte(`{"apiVersion":"v1","kind":"LimitRange","metadata":{"name":"big"},"spec":{"limits":[{"type":"Container","min":{"memory":"2Gi"}}]}}`)); err != nil {
			t.Fatal(err)
		}
		ns := append(nodes("lr-win", 2, "windows", ""), nodes("lr-lin", 2, "linux", "")...)
		if err := cp.AddNodes(ns...); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second)
		r := s.collect("", "--nodes", names(ns), "--parallel", "4")
		t.Logf("exit %d:\n%s", r.code, r.stderr)
		if r.code != 2 || !strings.Contains(lastLine(r.stderr), "minimum memory") {
			t.Errorf("exit %d: %s", r.code, lastLine(r.stderr))
		}
		s.noPodsLeft()
		s.checkAudit(s.user, r.report)
		s.saidAsWritten(r, r.report)
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
		ns := append(nodes("wh-win", 2, "windows", ""), nodes("wh-lin", 2, "linux", "")...)
		if err := cp.AddNodes(ns...); err != nil {
			t.Fatal(err)
		}
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
		s.noPodsLeft()
		s.checkAudit(s.user, r.report)
		s.saidAsWritten(r, r.report)
	})

	t.Run("--parallel 1 and 64 over Windows and Linux nodes", func(t *testing.T) {
		s := newScenario(t, cp, "par")
		ns := append(nodes("pw", 3, "windows", ""), nodes("pl", 3, "linux", "")...)
		if err := cp.AddNodes(ns...); err != nil {
			t.Fatal(err)
		}
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
		ns := []realcluster.NodeSpec{{Name: "pd-ok-w", OS: "windows"}, {Name: "pd-ok-l", OS: "linux"}, {Name: "pd-nk-w", OS: "windows", NoKubelet: true}, {Name: "pd-nk-l", OS: "linux", NoKubelet: true}}
		if err := cp.AddNodes(ns...); err != nil {
			t.Fatal(err)
		}
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
		ns := []realcluster.NodeSpec{{Name: "kl-nk", OS: "linux", NoKubelet: true}, {Name: "kl-hang", OS: "windows", Behave: "hang"}}
		if err := cp.AddNodes(ns...); err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), "out")
		runDiagCtx(t, context.Background(), s.kubeconfig, func(c *exec.Cmd) {
			if !s.waitPods(2, 30*time.Second) {
				t.Error("pods not made")
			}
			time.Sleep(time.Second)
			_ = c.Process.Kill()
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
		ns := []realcluster.NodeSpec{{Name: "gn-hang", OS: "windows", Behave: "hang"}, {Name: "gn-ok", OS: "linux"}}
		if err := cp.AddNodes(ns...); err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), "out")
		r := runDiagCtx(t, context.Background(), s.kubeconfig, func(*exec.Cmd) {
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
		if err := cp.AddNodes(ns...); err != nil {
			t.Fatal(err)
		}
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
		if err := cp.AddNodes(append(na, nb...)...); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			s  *scenario
			ns []realcluster.NodeSpec
		}{{a, na}, {b, nb}} {
			runDiagCtx(t, context.Background(), c.s.kubeconfig, func(cmd *exec.Cmd) {
				if !c.s.waitPods(len(c.ns), 30*time.Second) {
					t.Error("pods not made")
				}
				time.Sleep(500 * time.Millisecond)
				_ = cmd.Process.Kill()
			}, c.s.args(filepath.Join(t.TempDir(), "out"), "--nodes", names(c.ns), "--node-timeout", "60s")...)
		}
		r := runDiagCtx(t, context.Background(), a.kubeconfig, func(cmd *exec.Cmd) {
			time.Sleep(4 * time.Second)
			_ = cmd.Process.Signal(os.Interrupt)
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

// quotaStatus gives a ResourceQuota the status its controller would (no
// kube-controller-manager runs here): without it the quota admits all.
func (s *scenario) quotaStatus(name string, pods int) {
	s.t.Helper()
	body := fmt.Sprintf(`{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":%q,"namespace":%q},"spec":{"hard":{"pods":"%d"}},"status":{"hard":{"pods":"%d"},"used":{"pods":"0"}}}`, name, s.ns, pods, pods)
	if _, err := s.cp.Do(s.cp.Admin, http.MethodPut, "/api/v1/namespaces/"+s.ns+"/resourcequotas/"+name+"/status", "application/json", []byte(body)); err != nil {
		s.t.Fatal(err)
	}
}

// twoRoles binds user to the collector's pod permissions in two roles,
// pods and pods/exec, so that exec can be taken away alone.
func (s *scenario) twoRoles(user string) {
	s.t.Helper()
	doc := fmt.Sprintf(`apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: %[1]s-%[2]s}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: diag-cluster-collector}
subjects: [{kind: User, name: %[1]s, apiGroup: rbac.authorization.k8s.io}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: %[1]s-pods, namespace: %[2]s}
rules:
- {apiGroups: [""], resources: [pods], verbs: [create, list, watch, delete]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: %[1]s-exec, namespace: %[2]s}
rules:
- {apiGroups: [""], resources: [pods/exec], verbs: [create, get]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: %[1]s-pods, namespace: %[2]s}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: %[1]s-pods}
subjects: [{kind: User, name: %[1]s, apiGroup: rbac.authorization.k8s.io}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: %[1]s-exec, namespace: %[2]s}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: %[1]s-exec}
subjects: [{kind: User, name: %[1]s, apiGroup: rbac.authorization.k8s.io}]
`, user, s.ns)
	if err := s.cp.Apply(s.cp.Admin, doc); err != nil {
		s.t.Fatal(err)
	}
}

// saidAsWritten: every node cluster.json says did not give a whole
// bundle, and every pod it says was left, is said on stderr in the same
// words, and the pods it says were left are those the server has.
func (s *scenario) saidAsWritten(r result, rep *cluster.Report) {
	s.t.Helper()
	if rep == nil {
		return
	}
	for _, n := range rep.Nodes {
		if n.Status != cluster.StatusOK && !strings.Contains(r.stderr, n.Name+": "+n.Status+": "+n.Reason) {
			s.t.Errorf("cluster.json's %s: %s: %s is not on stderr", n.Name, n.Status, n.Reason)
		}
		if n.PodLeft && !strings.Contains(r.stderr, "pod "+rep.Namespace+"/"+n.Pod+" left") {
			s.t.Errorf("cluster.json's pod %s left is not on stderr", n.Pod)
		}
	}
	pods, err := s.cp.Pods()
	if err != nil {
		s.t.Fatal(err)
	}
	there := map[string]bool{}
	for _, p := range pods {
		if p.Metadata.Namespace == s.ns {
			there[p.Metadata.Name] = true
		}
	}
	for _, p := range rep.PodsLeft() {
		name := strings.TrimPrefix(p, rep.Namespace+"/")
		if !there[name] && !strings.Contains(p, "not answered") {
			// A pod reported left the server does not have: said so in
			// error (a Terminating one may go in the meantime: only a
			// refused delete is checked).
			for _, n := range rep.Nodes {
				if n.Pod == name && strings.HasPrefix(n.PodLeftReason, "delete refused") {
					s.t.Errorf("cluster.json says %s was left (%s), the server has no such pod", name, n.PodLeftReason)
				}
			}
		}
	}
}

// What the real API server showed wrong, each scenario failing until it
// is fixed.
func TestReview2Defects(t *testing.T) {
	cp := startPlane(t, realcluster.Options{})

	// A signal after a bundle arrived: the run stops and its pods go, then
	// the analysis of what arrived meets the same cancelled context and
	// diag exits 1, "a bug in diag".
	t.Run("Ctrl-C or SIGTERM after a bundle arrived: not exit 1", func(t *testing.T) {
		s := newScenario(t, cp, "sigafter")
		running := []realcluster.NodeSpec{{Name: "sa-ok", OS: "windows"}, {Name: "sa-hang-1", OS: "linux", Behave: "hang"}, {Name: "sa-hang-2", OS: "windows", Behave: "hang"}}
		waiting := []realcluster.NodeSpec{{Name: "sa-ok2", OS: "linux"}, {Name: "sa-nk", OS: "windows", NoKubelet: true}}
		if err := cp.AddNodes(append(running, waiting...)...); err != nil {
			t.Fatal(err)
		}
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
			r := runDiagCtx(t, context.Background(), s.kubeconfig, func(cmd *exec.Cmd) {
				deadline := time.Now().Add(60 * time.Second)
				for !c.ready(dir) && time.Now().Before(deadline) {
					time.Sleep(20 * time.Millisecond)
				}
				_ = cmd.Process.Signal(c.sig)
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
	// the run are reported failed with that node's refusal (naming its
	// pod) as their own, instead of cancelled: the run stopped.
	t.Run("another node's exec refusal stops the run: nodes whose pods were starting are cancelled, not failed with its words", func(t *testing.T) {
		s := newScenario(t, cp, "cancelwords")
		ok := []realcluster.NodeSpec{{Name: "cw-ok", OS: "linux"}}
		pending := []realcluster.NodeSpec{{Name: "cw-nk-1", OS: "linux", NoKubelet: true}, {Name: "cw-nk-2", OS: "windows", NoKubelet: true}}
		ns := append(append([]realcluster.NodeSpec{}, pending...), ok...)
		if err := cp.AddNodes(ns...); err != nil {
			t.Fatal(err)
		}
		user := "cw-user"
		s.twoRoles(user)
		kc, err := cp.Kubeconfig(user)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), "out")
		r := runDiagCtx(t, context.Background(), kc, func(*exec.Cmd) {
			if !s.waitPods(3, 30*time.Second) {
				t.Error("pods not made")
			}
			if _, err := cp.Do(cp.Admin, http.MethodDelete, "/apis/rbac.authorization.k8s.io/v1/namespaces/cancelwords/rolebindings/"+user+"-exec", "", nil); err != nil {
				t.Error(err)
			}
		}, s.args(dir, "--nodes", names(ns), "--parallel", "3", "--node-timeout", "60s")...)
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

	// A Ctrl-C while --cleanup --force waits for a deleted pod to go
	// turns into exit 2 and "pod ... not deleted: delete pods interrupted",
	// as if the server had refused the delete: the pod was deleted and is
	// Terminating, and the message names neither that nor what removes it.
	t.Run("Ctrl-C while --cleanup --force waits for a pod whose node has no kubelet: exit 3, the pod named Terminating", func(t *testing.T) {
		s := newScenario(t, cp, "cleanint")
		ns := []realcluster.NodeSpec{{Name: "ci-nk", OS: "linux", NoKubelet: true}}
		if err := cp.AddNodes(ns...); err != nil {
			t.Fatal(err)
		}
		runDiagCtx(t, context.Background(), s.kubeconfig, func(c *exec.Cmd) {
			if !s.waitPods(1, 30*time.Second) {
				t.Error("pod not made")
			}
			_ = c.Process.Kill()
		}, s.args(filepath.Join(t.TempDir(), "out"), "--nodes", names(ns), "--node-timeout", "60s")...)
		r := runDiagCtx(t, context.Background(), s.kubeconfig, func(c *exec.Cmd) {
			time.Sleep(3 * time.Second)
			_ = c.Process.Signal(os.Interrupt)
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
	// kubelet), no bundle arrives, and the Windows refusal is returned
	// for the whole run: exit 2, its words as the last line, though Linux
	// was never refused (its nodes timed out: exit 3).
	t.Run("Windows refused by a policy, Linux pods never start: exit 3, not the Windows refusal's exit 2", func(t *testing.T) {
		s := newScenario(t, cp, "halfref")
		if err := cp.Apply(cp.Admin, vap("no-hostprocess-halfref", "halfref", "!has(object.spec.securityContext) || !has(object.spec.securityContext.windowsOptions) || !has(object.spec.securityContext.windowsOptions.hostProcess) || !object.spec.securityContext.windowsOptions.hostProcess",
			"HostProcess pods are not allowed in this cluster (policy no-hostprocess-halfref)")); err != nil {
			t.Fatal(err)
		}
		ns := []realcluster.NodeSpec{{Name: "hr-win-1", OS: "windows"}, {Name: "hr-win-2", OS: "windows"}, {Name: "hr-lin-1", OS: "linux", NoKubelet: true}, {Name: "hr-lin-2", OS: "linux", NoKubelet: true}}
		if err := cp.AddNodes(ns...); err != nil {
			t.Fatal(err)
		}
		if err := cp.WaitRefused("halfref", realcluster.ProbePod("windows", ""), "no-hostprocess-halfref"); err != nil {
			t.Fatal(err)
		}
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
	// list and delete but not watch: both pods are deleted (2xx) and gone
	// within the second, yet diag says each "is still Terminating: its
	// node's kubelet did not confirm the delete (--force removes it
	// without)", "0 of 2 pod(s) gone", exit 3 - the watch's refusal is
	// dropped and the first list taken for the end state.
	t.Run("--cleanup by a user who may list and delete pods but not watch them: a true report of what went", func(t *testing.T) {
		s := newScenario(t, cp, "nowatch")
		ns := nodes("nw", 2, "linux", "hang")
		if err := cp.AddNodes(ns...); err != nil {
			t.Fatal(err)
		}
		runDiagCtx(t, context.Background(), s.kubeconfig, func(c *exec.Cmd) {
			if !s.waitPods(2, 30*time.Second) {
				t.Error("pods not made")
			}
			_ = c.Process.Kill()
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
	// does (which stops the run at its first answer): it is taken for a
	// refusal of the pod spec, tried twice per OS, every node listed as
	// failed.
	t.Run("a namespace being terminated stops the run at the first refusal, as a missing namespace does", func(t *testing.T) {
		s := newScenario(t, cp, "doomed2")
		ns := append(nodes("d2-win", 3, "windows", ""), nodes("d2-lin", 3, "linux", "")...)
		if err := cp.AddNodes(ns...); err != nil {
			t.Fatal(err)
		}
		if _, err := cp.Do(cp.Admin, http.MethodDelete, "/api/v1/namespaces/doomed2", "", nil); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Second)
		r := s.collect("", "--nodes", names(ns), "--parallel", "1")
		creates := 0
		for _, e := range s.audit(s.user) {
			if e.Verb == "create" && e.Resource() == "pods" {
				creates++
			}
		}
		if r.code != 2 || creates != 1 || !strings.Contains(lastLine(r.stderr), "being terminated") {
			t.Errorf("exit %d, %d pod creations sent (want 2 and 1):\n%s", r.code, creates, r.stderr)
		}
		s.noPodsLeft()
	})
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// --nodes auto on a cluster of its own: a NotReady Windows node, one
// with sandbox failure events, a healthy Windows and Linux node to
// compare, and nodes it does not choose.
func TestReview2Auto(t *testing.T) {
	cp := startPlane(t, realcluster.Options{})
	s := newScenario(t, cp, "diag")
	ns := []realcluster.NodeSpec{
		{Name: "au-w1", OS: "windows"}, {Name: "au-w2", OS: "windows"}, {Name: "au-w3", OS: "windows"},
		{Name: "au-nr", OS: "windows", NoKubelet: true},
		{Name: "au-l1", OS: "linux"}, {Name: "au-l2", OS: "linux"},
	}
	if err := cp.AddNodes(ns...); err != nil {
		t.Fatal(err)
	}
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
