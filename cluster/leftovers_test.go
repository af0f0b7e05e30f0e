package cluster

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/wincni/diag/cluster/clustertest"
)

// A create given up because the run stopped (here: the node's time ended
// while the server still worked on it) may land after the fact: the
// sweep finds the pod by the run's label and deletes it.
func TestCreateGivenUpLandsLater(t *testing.T) {
	f := newFake(t, clustertest.Node{Name: "w1", OS: "windows"}, clustertest.Node{Name: "w2", OS: "windows"})
	f.CreateDelay = 400 * time.Millisecond
	o := options(t, 150*time.Millisecond, 2)
	rep, err := Collect(context.Background(), apiFor(t, f), nil, chooseAll(t, f), o)
	if err != nil || rep.Count(StatusTimeout) != 2 {
		t.Fatalf("%v %+v", err, rep.Nodes)
	}
	if live := f.Live(); len(live) > 0 {
		t.Errorf("pods left: %v", live)
	}
	if left := rep.PodsLeft(); len(left) > 0 {
		t.Errorf("reported left: %v", left)
	}
}

// Another node's refusal that stops the run is never taken for this
// node's answer: its create is not definite, its pod is looked for.
func TestInterruptedIsNotDefinite(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	refusal := &APIError{Code: http.StatusForbidden, Verb: "create", Resource: "pods", Message: `pods is forbidden: User "a" cannot create resource "pods" in API group ""`}
	cancel(refusal)
	err := interrupted(ctx, "create pods", nil)
	if Definite(err) || StopsRun(err) || IsForbidden(err) || !errors.Is(err, context.Canceled) {
		t.Errorf("%v: definite %v, stops %v", err, Definite(err), StopsRun(err))
	}
	if !strings.Contains(err.Error(), "cannot create resource") {
		t.Errorf("the cause is not said: %v", err)
	}
}

// Each refusal reaches as far as its cause, and is worded by who refused.
func TestRefusalScope(t *testing.T) {
	for _, c := range []struct {
		code           int
		verb, resource string
		msg            string
		scope          Scope
		says, not      string
	}{
		{403, "create", "pods", `pods is forbidden: User "alice" cannot create resource "pods" in API group "" in the namespace "diag"`, ScopeRun, "--print-rbac", ""},
		{403, "create", "pods", `pods "p" is forbidden: error looking up service account diag/diag: serviceaccount "diag" not found`, ScopeRun, "makes the service account", "permission denied"},
		{403, "create", "pods", `pods "p" is forbidden: violates PodSecurity "baseline:latest": host namespaces (hostNetwork=true)`, ScopeOS, "Pod Security", "permission denied"},
		{403, "create", "pods", `pods "p" is forbidden: ValidatingAdmissionPolicy 'no-hp' with binding 'no-hp' denied request: HostProcess pods are not allowed`, ScopeOS, "denied request: HostProcess", "--print-rbac"},
		{403, "create", "pods", `admission webhook "policy.example.com" denied the request: no`, ScopeOS, "admission webhook", "--print-rbac"},
		{422, "create", "pods", `Pod "p" is invalid: spec.securityContext.windowsOptions.hostProcess: Forbidden: hostProcess containers are disallowed by cluster policy`, ScopeOS, "--allow-privileged", ""},
		{422, "create", "pods", `Pod "p" is invalid: spec.containers[0].image: Required value`, ScopeOS, "invalid", ""},
		{404, "create", "pods", `namespaces "nope" not found`, ScopeRun, "makes the namespace", ""},
		{403, "create", "pods", `pods "p" is forbidden: unable to create new content in namespace doomed because it is being terminated`, ScopeRun, "being deleted", "permission denied"},
		{401, "list", "nodes", `Unauthorized`, ScopeRun, "credentials", ""},
		{404, "get", "pods", `pods "p" not found`, ScopeNode, "", ""},
		{500, "create", "pods", `etcdserver: request timed out`, ScopeNode, "", ""},
	} {
		err := fmt.Errorf("create the collector pod: %w", &APIError{Code: c.code, Verb: c.verb, Resource: c.resource, Message: c.msg})
		if got := RefusalScope(err); got != c.scope {
			t.Errorf("%d %s: scope %d, want %d", c.code, c.msg, got, c.scope)
		}
		if !strings.Contains(err.Error(), c.msg) || !strings.Contains(err.Error(), c.says) || (c.not != "" && strings.Contains(err.Error(), c.not)) {
			t.Errorf("%d: %v", c.code, err)
		}
	}
}

// A refusal of the Windows pod spec met by two Windows nodes stops the
// others; the Linux nodes are collected and the run says no refusal.
func TestOSRefusalStopsThatOSOnly(t *testing.T) {
	f := newFake(t, clustertest.Node{Name: "w1", OS: "windows"}, clustertest.Node{Name: "w2", OS: "windows"}, clustertest.Node{Name: "w3", OS: "windows"},
		clustertest.Node{Name: "l1", OS: "linux"}, clustertest.Node{Name: "l2", OS: "linux"})
	f.RefuseOS["windows"] = `pods "x" is forbidden: ValidatingAdmissionPolicy 'no-hp' with binding 'no-hp' denied request: no HostProcess`
	rep, err := Collect(context.Background(), apiFor(t, f), nil, chooseAll(t, f), options(t, 5*time.Second, 1))
	got := byName(rep)
	if err != nil || got["l1"].Status != StatusOK || got["l2"].Status != StatusOK {
		t.Fatalf("%v %+v", err, rep.Nodes)
	}
	if got["w1"].Status != StatusFailed || !strings.Contains(got["w1"].Reason, "no HostProcess") || strings.Contains(got["w2"].Reason, "not tried") || !strings.Contains(got["w3"].Reason, "not tried") {
		t.Errorf("%+v", rep.Nodes)
	}
	if f.Creates("windows") != 2 {
		t.Errorf("%d Windows creates, want 2", f.Creates("windows"))
	}
	// Only Windows nodes: the refusal is the run's answer.
	f = newFake(t, clustertest.Node{Name: "w1", OS: "windows"}, clustertest.Node{Name: "w2", OS: "windows"})
	f.RefuseOS["windows"] = `pods "x" is forbidden: ValidatingAdmissionPolicy 'no-hp' with binding 'no-hp' denied request: no HostProcess`
	_, err = Collect(context.Background(), apiFor(t, f), nil, chooseAll(t, f), options(t, 5*time.Second, 2))
	if RefusalScope(err) != ScopeOS {
		t.Errorf("%v", err)
	}
}

// A policy that names one node refuses that node only: the other nodes of
// its OS are collected.
func TestOneNodeRefusalStopsThatNodeOnly(t *testing.T) {
	f := newFake(t, clustertest.Node{Name: "w1", OS: "windows"}, clustertest.Node{Name: "w2", OS: "windows"}, clustertest.Node{Name: "w3", OS: "windows"})
	f.RefuseNode["w1"] = `pods "x" is forbidden: ValidatingAdmissionPolicy 'reserved' with binding 'reserved' denied request: node w1 is reserved`
	rep, err := Collect(context.Background(), apiFor(t, f), nil, chooseAll(t, f), options(t, 5*time.Second, 1))
	got := byName(rep)
	if err != nil || got["w1"].Status != StatusFailed || got["w2"].Status != StatusOK || got["w3"].Status != StatusOK {
		t.Errorf("%v %+v", err, rep.Nodes)
	}
}

// A pod whose node's kubelet never confirms its delete is reported as left
// Terminating, and --cleanup --force removes it.
func TestStuckPodReportedAndForced(t *testing.T) {
	f := newFake(t, clustertest.Node{Name: "w1", OS: "windows", Behave: clustertest.Stuck})
	o := options(t, 5*time.Second, 1)
	o.DeleteWait = 300 * time.Millisecond
	api := apiFor(t, f)
	rep, err := Collect(context.Background(), api, nil, chooseAll(t, f), o)
	if err != nil || len(rep.Stuck()) != 1 || !strings.Contains(rep.Nodes[0].PodLeftReason, "--cleanup --force") {
		t.Fatalf("%v %+v", err, rep.Nodes)
	}
	cr, err := Cleanup(context.Background(), api, "diag", false, 300*time.Millisecond)
	if err != nil || len(cr.Terminating) != 1 || len(cr.Deleted) != 0 {
		t.Errorf("without --force: %+v %v", cr, err)
	}
	cr, err = Cleanup(context.Background(), api, "diag", true, 300*time.Millisecond)
	if err != nil || len(cr.Forced) != 1 || len(cr.Terminating) != 0 || len(f.Live()) != 0 {
		t.Errorf("--force: %+v %v %v", cr, err, f.Live())
	}
}

// --cleanup without the right to delete says so for each pod and deletes
// nothing it does not say.
func TestCleanupRefused(t *testing.T) {
	f := newFake(t, clustertest.Node{Name: "w1", OS: "windows"})
	api := apiFor(t, f)
	for _, run := range []string{"old1", "old2"} {
		m, _ := PodSpec{Namespace: "diag", Image: "x", Run: run, Deadline: time.Minute}.Manifest(Node{Name: "w1", OS: "windows"})
		if err := api.CreatePod(context.Background(), "diag", m); err != nil {
			t.Fatal(err)
		}
	}
	f.Forbidden["delete pods"] = true
	cr, err := Cleanup(context.Background(), api, "diag", false, time.Second)
	if !IsForbidden(err) || len(cr.Refused) != 2 || len(cr.Deleted) != 0 || len(f.Live()) != 2 {
		t.Errorf("%+v %v", cr, err)
	}
}

// A kubelet that reports an exec's exit status only in its error's text.
func TestExitCodeInText(t *testing.T) {
	err := errors.New("Internal error occurred: error executing command in container: cmd wait: /diag collect --stream: exit status 3")
	if code, ok := ExitCode(err); !ok || code != 3 {
		t.Errorf("%d %v", code, ok)
	}
	if _, ok := ExitCode(errors.New("dial tcp: exit status 3")); ok {
		t.Error("an exit status outside an exec error")
	}
}
