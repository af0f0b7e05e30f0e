package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wincni/diag/cluster"
	"github.com/wincni/diag/cluster/clustertest/realcluster"
)

// agent is the user agent diag's requests carry (the binary is built with
// this version).
const agent = "diag/v0.0.0-e2e"

// startPlane starts a control plane for the test with kwok's kubelet
// stand-in running.
func startPlane(t *testing.T, o realcluster.Options) *realcluster.ControlPlane {
	t.Helper()
	realcluster.Binaries(t) // skips without them
	cp := realcluster.Start(t, standinBin, o)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	cp.RunKubelet(ctx, diagBin)
	return cp
}

// scenario is one namespace with diag's RBAC applied as --print-rbac
// prints it, and a user bound to the collector role as its comments say.
type scenario struct {
	t          *testing.T
	cp         *realcluster.ControlPlane
	ns         string
	user       string
	kubeconfig string
}

func newScenario(t *testing.T, cp *realcluster.ControlPlane, ns string) *scenario {
	t.Helper()
	rbac := runDiag(t, "", "collect", "--cluster", "--print-rbac", "--namespace", ns)
	if rbac.code != 0 {
		t.Fatalf("--print-rbac: %d %s", rbac.code, rbac.stderr)
	}
	if err := cp.Apply(cp.Admin, rbac.stdout); err != nil {
		t.Fatalf("apply --print-rbac: %v", err)
	}
	s := &scenario{t: t, cp: cp, ns: ns, user: "alice-" + ns}
	s.bind(s.user, "diag-cluster-collector")
	kc, err := cp.Kubeconfig(s.user)
	if err != nil {
		t.Fatal(err)
	}
	s.kubeconfig = kc
	return s
}

// bind binds user to the cluster role and to the role of that name in
// the scenario's namespace.
func (s *scenario) bind(user, role string) {
	s.t.Helper()
	doc := fmt.Sprintf(`apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: %[1]s-%[3]s}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: diag-cluster-collector}
subjects: [{kind: User, name: %[1]s, apiGroup: rbac.authorization.k8s.io}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: %[1]s, namespace: %[3]s}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: %[2]s}
subjects: [{kind: User, name: %[1]s, apiGroup: rbac.authorization.k8s.io}]
`, user, role, s.ns)
	if err := s.cp.Apply(s.cp.Admin, doc); err != nil {
		s.t.Fatal(err)
	}
}

// userWith is a user with a role of exactly these pod verbs in the
// scenario's namespace (and the cluster role: nodes, events).
func (s *scenario) userWith(name string, podVerbs, execVerbs []string) string {
	s.t.Helper()
	role := fmt.Sprintf(`apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: %s, namespace: %s}
rules:
- {apiGroups: [""], resources: [pods], verbs: %s}
- {apiGroups: [""], resources: [pods/exec], verbs: %s}
`, name, s.ns, jsonList(podVerbs), jsonList(execVerbs))
	if err := s.cp.Apply(s.cp.Admin, role); err != nil {
		s.t.Fatal(err)
	}
	s.bind(name, name)
	kc, err := s.cp.Kubeconfig(name)
	if err != nil {
		s.t.Fatal(err)
	}
	return kc
}

func jsonList(v []string) string {
	b, _ := json.Marshal(v)
	return string(b)
}

type result struct {
	code           int
	stdout, stderr string
	dir            string
	report         *cluster.Report
}

// runDiag runs the diag binary.
func runDiag(t *testing.T, kubeconfig string, args ...string) result {
	t.Helper()
	return runDiagWith(t, kubeconfig, nil, args...)
}

// runDiagWith runs the diag binary and, once it has started, calls
// started (when not nil) with its process: to signal it, kill it or change
// the cluster under it.
func runDiagWith(t *testing.T, kubeconfig string, started func(*os.Process), args ...string) result {
	t.Helper()
	if kubeconfig != "" {
		args = append(args, "--kubeconfig", kubeconfig)
	}
	cmd := exec.Command(diagBin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "KUBECONFIG=/nonexistent")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if started != nil {
		started(cmd.Process)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(4 * time.Minute):
		_ = cmd.Process.Kill()
		t.Fatalf("diag %v did not end in 4 minutes; stderr:\n%s", args, stderr.String())
	}
	r := result{stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	checkNoKlog(t, r.stderr)
	return r
}

// collect runs diag collect --cluster as the scenario's user (or kc).
func (s *scenario) collect(kc string, args ...string) result {
	s.t.Helper()
	if kc == "" {
		kc = s.kubeconfig
	}
	dir := filepath.Join(s.t.TempDir(), "out")
	r := runDiag(s.t, kc, s.args(dir, args...)...)
	r.dir = dir
	r.report = readReport(s.t, dir)
	return r
}

func readReport(t *testing.T, dir string) *cluster.Report {
	data, err := os.ReadFile(filepath.Join(dir, "cluster.json"))
	if err != nil {
		return nil
	}
	var rep cluster.Report
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatalf("cluster.json: %v", err)
	}
	return &rep
}

var klogLine = regexp.MustCompile(`(?m)^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+ `)

// checkNoKlog: nothing client-go logs reaches diag's stderr.
func checkNoKlog(t *testing.T, stderr string) {
	t.Helper()
	if m := klogLine.FindString(stderr); m != "" {
		t.Errorf("a klog line reached stderr (%q...):\n%s", m, stderr)
	}
}

// noPodsLeft: no pod of diag's in any state, in any namespace.
func (s *scenario) noPodsLeft() {
	s.t.Helper()
	if left := s.cp.PodsLeft(); len(left) > 0 {
		s.t.Errorf("pods left behind: %v", left)
		s.cp.ForceDeleteAll()
	}
}

// lastLine is stderr's last line: what diag says when it stops.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// audit is what the server logged of the scenario's diag requests.
func (s *scenario) audit(user string) []realcluster.AuditEvent {
	var out []realcluster.AuditEvent
	for _, e := range s.cp.Audit(agent) {
		if (e.ObjectRef.Namespace == s.ns || e.ObjectRef.Namespace == "") && (user == "" || e.User.Username == user) {
			out = append(out, e)
		}
	}
	return out
}

// podCreates are the pod names the server created (201) for diag.
func podCreates(events []realcluster.AuditEvent) []string {
	var out []string
	for _, e := range events {
		if e.Verb == "create" && e.Resource() == "pods" && e.ResponseStatus.Code == http.StatusCreated {
			out = append(out, e.ObjectRef.Name)
		}
	}
	return out
}

// createsSent counts the pod creates diag sent, whatever the answer.
func createsSent(events []realcluster.AuditEvent) int {
	n := 0
	for _, e := range events {
		if e.Verb == "create" && e.Resource() == "pods" {
			n++
		}
	}
	return n
}

// addNodes adds the groups of nodes to the control plane and returns them
// as one list.
func (s *scenario) addNodes(groups ...[]realcluster.NodeSpec) []realcluster.NodeSpec {
	s.t.Helper()
	var ns []realcluster.NodeSpec
	for _, g := range groups {
		ns = append(ns, g...)
	}
	if err := s.cp.AddNodes(ns...); err != nil {
		s.t.Fatal(err)
	}
	return ns
}

func nodes(prefix string, n int, os, behave string) []realcluster.NodeSpec {
	var out []realcluster.NodeSpec
	for i := 1; i <= n; i++ {
		out = append(out, realcluster.NodeSpec{Name: fmt.Sprintf("%s-%d", prefix, i), OS: os, Behave: behave})
	}
	return out
}

func names(specs []realcluster.NodeSpec) string {
	var out []string
	for _, n := range specs {
		out = append(out, n.Name)
	}
	return strings.Join(out, ",")
}

// noHostProcess holds for a pod that is not HostProcess.
const noHostProcess = "!has(object.spec.securityContext) || !has(object.spec.securityContext.windowsOptions) || !has(object.spec.securityContext.windowsOptions.hostProcess) || !object.spec.securityContext.windowsOptions.hostProcess"

// policy makes a ValidatingAdmissionPolicy, bound to the scenario's
// namespace, that refuses with message every pod create for which
// expression does not hold; then waits until the server refuses probe
// with it (a policy reaches the API server's cache a moment after it is
// made).
func (s *scenario) policy(name, expression, message string, probe map[string]any) {
	s.t.Helper()
	doc := fmt.Sprintf(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: %[1]s}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [pods]}
  validations:
  - expression: %[3]q
    message: %[4]q
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: %[1]s}
spec:
  policyName: %[1]s
  validationActions: [Deny]
  matchResources:
    namespaceSelector:
      matchLabels: {kubernetes.io/metadata.name: %[2]s}
`, name, s.ns, expression, message)
	if err := s.cp.Apply(s.cp.Admin, doc); err != nil {
		s.t.Fatal(err)
	}
	if err := s.cp.WaitRefused(s.ns, probe, name); err != nil {
		s.t.Fatal(err)
	}
}

// args are diag collect --cluster's arguments in the scenario, as its
// user runs it.
func (s *scenario) args(dir string, extra ...string) []string {
	return append([]string{"collect", "--cluster", "--namespace", s.ns, "--image", "registry.example/diag:e2e", "--output-dir", dir, "-o", "json"}, extra...)
}
