//go:build unix

package e2e

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/wincni/diag/cluster"
)

// Helpers of the scenarios that signal processes, and of the files that
// hold them (unix only).

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

// interruptPaused is a start hook for runDiagWith: once n pods of the
// scenario are there, it pauses the API server, sends diag Ctrl-C, and
// lets the server answer again after hold.
func (s *scenario) interruptPaused(n int, hold time.Duration) func(*os.Process) {
	pid := s.cp.APIServerPID()
	s.t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGCONT) })
	return func(p *os.Process) {
		if !s.waitPods(n, 30*time.Second) {
			s.t.Error("pods not made")
		}
		time.Sleep(time.Second)
		_ = syscall.Kill(pid, syscall.SIGSTOP)
		time.Sleep(time.Second)
		_ = p.Signal(os.Interrupt)
		time.Sleep(hold)
		_ = syscall.Kill(pid, syscall.SIGCONT)
	}
}

// sawWaiting: cluster.json was written before the wait for deleted pods.
func (s *scenario) sawWaiting(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "cluster.json"))
	return err == nil
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
// pods and pods/exec, so that exec can be taken away alone (dropExec),
// and returns the user's kubeconfig.
func (s *scenario) twoRoles(user string) string {
	s.t.Helper()
	doc := fmt.Sprintf(`apiVersion: rbac.authorization.k8s.io/v1
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
metadata: {name: %[1]s-exec, namespace: %[2]s}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: %[1]s-exec}
subjects: [{kind: User, name: %[1]s, apiGroup: rbac.authorization.k8s.io}]
`, user, s.ns)
	if err := s.cp.Apply(s.cp.Admin, doc); err != nil {
		s.t.Fatal(err)
	}
	s.bind(user, user+"-pods")
	kc, err := s.cp.Kubeconfig(user)
	if err != nil {
		s.t.Fatal(err)
	}
	return kc
}

// dropExec is a start hook for runDiagWith: once n pods of the scenario
// are there, it deletes the binding of user's pods/exec role (twoRoles).
func (s *scenario) dropExec(user string, n int) func(*os.Process) {
	return func(*os.Process) {
		if !s.waitPods(n, 30*time.Second) {
			s.t.Errorf("%d pod(s) not made", n)
		}
		if _, err := s.cp.Do(s.cp.Admin, http.MethodDelete, "/apis/rbac.authorization.k8s.io/v1/namespaces/"+s.ns+"/rolebindings/"+user+"-exec", "", nil); err != nil {
			s.t.Error(err)
		}
	}
}

// checkEnd: no pod of diag's is left, every pod the server made for user
// was deleted by diag or is named left (checkAudit), and stderr says what
// cluster.json says (saidAsWritten).
func (s *scenario) checkEnd(user string, r result, rep *cluster.Report) {
	s.t.Helper()
	s.noPodsLeft()
	s.checkAudit(user, rep)
	s.saidAsWritten(r, rep)
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

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
