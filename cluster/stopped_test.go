package cluster

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/wincni/diag/cluster/clustertest"
)

// Another node's refusal that stops the run (its exec refused by RBAC) is
// not the answer of the nodes whose pods were still starting: they are
// cancelled because the run stopped, not failed with its words.
func TestStartingNodesCancelledByAnothersRefusal(t *testing.T) {
	f := newFake(t, clustertest.Node{Name: "ok", OS: "linux", Behave: clustertest.OK},
		clustertest.Node{Name: "pending-1", OS: "linux", Behave: clustertest.NeverStarts},
		clustertest.Node{Name: "pending-2", OS: "windows", Behave: clustertest.NeverStarts})
	f.Forbidden["create pods/exec"] = true
	rep, err := Collect(context.Background(), apiFor(t, f), nil, chooseAll(t, f), options(t, 20*time.Second, 3))
	if !StopsRun(err) || !strings.Contains(err.Error(), "pods/exec") {
		t.Fatalf("%v", err)
	}
	got := byName(rep)
	if n := got["ok"]; n.Status != StatusFailed || !strings.Contains(n.Reason, "pods/exec") {
		t.Errorf("ok: %s: %s", n.Status, n.Reason)
	}
	for _, name := range []string{"pending-1", "pending-2"} {
		n := got[name]
		if n.Status != StatusCancelled || !strings.HasPrefix(n.Reason, "the run stopped: ") {
			t.Errorf("%s (its pod never ran): %s: %s", name, n.Status, n.Reason)
		}
	}
	if live := f.Live(); len(live) > 0 {
		t.Errorf("pods left: %v", live)
	}
}

// A namespace being deleted refuses every pod alike (NamespaceLifecycle,
// 403), as a missing one does: the run stops at the first answer.
func TestNamespaceTerminatingStopsTheRun(t *testing.T) {
	f := newFake(t, clustertest.Node{Name: "w1", OS: "windows"}, clustertest.Node{Name: "w2", OS: "windows"},
		clustertest.Node{Name: "l1", OS: "linux"}, clustertest.Node{Name: "l2", OS: "linux"})
	msg := `pods "x" is forbidden: unable to create new content in namespace diag because it is being terminated`
	f.RefuseOS["windows"], f.RefuseOS["linux"] = msg, msg
	rep, err := Collect(context.Background(), apiFor(t, f), nil, chooseAll(t, f), options(t, 5*time.Second, 1))
	if !StopsRun(err) || !strings.Contains(err.Error(), "being terminated") || strings.Contains(err.Error(), "permission denied") {
		t.Errorf("%v", err)
	}
	if n := f.Creates("windows") + f.Creates("linux"); n != 1 {
		t.Errorf("%d creates sent, want 1", n)
	}
	if rep.Count(StatusCancelled) != 3 || rep.Stopped == "" {
		t.Errorf("%+v", rep.Nodes)
	}
}

// One OS refused, the other's nodes without a bundle for their own
// reasons (pods that never start): no bundle arrived, yet not every OS
// was refused, so the refusal is no answer for the run.
func TestOneOSRefusedIsNotTheRunsAnswer(t *testing.T) {
	f := newFake(t, clustertest.Node{Name: "w1", OS: "windows"}, clustertest.Node{Name: "w2", OS: "windows"},
		clustertest.Node{Name: "l1", OS: "linux", Behave: clustertest.NeverStarts}, clustertest.Node{Name: "l2", OS: "linux", Behave: clustertest.NeverStarts})
	f.RefuseOS["windows"] = `pods "x" is forbidden: ValidatingAdmissionPolicy 'no-hp' with binding 'no-hp' denied request: no HostProcess`
	rep, err := Collect(context.Background(), apiFor(t, f), nil, chooseAll(t, f), options(t, time.Second, 4))
	if err != nil || rep.Count(StatusFailed) != 2 || rep.Count(StatusTimeout) != 2 {
		t.Errorf("%v %+v", err, rep.Nodes)
	}
}

// The errors of the API name their request once: no "create the collector
// pod: create pods: 503".
func TestCreateFailureSaidOnce(t *testing.T) {
	f := newFake(t, clustertest.Node{Name: "w1", OS: "windows"})
	choices := chooseAll(t, f)
	f.FailCreates.Store(100)
	rep, _ := Collect(context.Background(), apiFor(t, f), nil, choices, options(t, 5*time.Second, 1))
	if r := rep.Nodes[0].Reason; !strings.HasPrefix(r, "create pods: 503") || strings.Count(r, "create") != 1 {
		t.Errorf("%q", r)
	}
}

// --cleanup by a user who may list and delete pods but not watch them:
// the pods are listed again until they go, and the report is what the
// server has, not the first list.
func TestCleanupWithoutWatch(t *testing.T) {
	f := newFake(t, clustertest.Node{Name: "w1", OS: "windows"}, clustertest.Node{Name: "w2", OS: "windows", Behave: clustertest.Stuck})
	api := apiFor(t, f)
	for _, n := range []Node{{Name: "w1", OS: "windows"}, {Name: "w2", OS: "windows"}} {
		m, _ := PodSpec{Namespace: "diag", Image: "x", Run: "old1", Deadline: time.Minute}.Manifest(n)
		if err := api.CreatePod(context.Background(), "diag", m); err != nil {
			t.Fatal(err)
		}
	}
	f.Forbidden["watch pods"] = true
	cr, err := Cleanup(context.Background(), api, "diag", false, 2*time.Second)
	if err != nil || len(cr.Deleted) != 1 || !strings.HasPrefix(cr.Deleted[0], "diag-w1-") || len(cr.Terminating) != 1 || !strings.HasPrefix(cr.Terminating[0], "diag-w2-") {
		t.Errorf("%+v %v", cr, err)
	}
	// Listed once a second while it waited, not in a spin.
	if n := f.PodLists.Load(); n < 2 || n > 6 {
		t.Errorf("%d lists in a 2 s wait", n)
	}
	f.Forbidden["list pods"] = true
	cr, err = Cleanup(context.Background(), api, "diag", false, time.Second)
	if cr != nil || !IsForbidden(err) {
		t.Errorf("list refused: %+v %v", cr, err)
	}
}

// Ctrl-C while --cleanup --force waits for a pod whose kubelet does not
// confirm: nothing more is sent, and the pod is said Terminating (it was
// deleted), not refused.
func TestCleanupInterrupted(t *testing.T) {
	f := newFake(t, clustertest.Node{Name: "w1", OS: "windows", Behave: clustertest.Stuck})
	api := apiFor(t, f)
	m, _ := PodSpec{Namespace: "diag", Image: "x", Run: "old1", Deadline: time.Minute}.Manifest(Node{Name: "w1", OS: "windows"})
	if err := api.CreatePod(context.Background(), "diag", m); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	cr, err := Cleanup(ctx, api, "diag", true, 10*time.Second)
	if err != nil || len(cr.Refused) != 0 || len(cr.Unsure) != 0 || len(cr.Terminating) != 1 || cr.Interrupted == nil {
		t.Errorf("%+v %v", cr, err)
	}
	if live := f.Live(); len(live) != 1 {
		t.Errorf("the force delete was sent after Ctrl-C: %v", live)
	}
}

// The run's pod watch fails for good mid-run (the watch permission taken
// away): the wait for the deleted pods lists them once a second instead,
// sees them go and ends, where it spun on the last state seen until
// DeleteWait and then named pods left that were gone.
func TestSweepAfterTheWatchFails(t *testing.T) {
	f := newFake(t, clustertest.Node{Name: "w1", OS: "windows"})
	// Taken away once the pod runs (the node no longer waits on the
	// watch), and the exec goes on once the client met the refusal.
	f.OnExec = func(string) {
		f.RefuseWatch.Store(true)
		for end := time.Now().Add(5 * time.Second); f.RefusedWatches.Load() == 0 && time.Now().Before(end); {
			time.Sleep(5 * time.Millisecond)
		}
	}
	o := options(t, 10*time.Second, 1)
	o.DeleteWait = 30 * time.Second
	start := time.Now()
	rep, err := Collect(context.Background(), apiFor(t, f), nil, chooseAll(t, f), o)
	took := time.Since(start)
	if err != nil || rep.Nodes[0].Status != StatusOK || f.RefusedWatches.Load() == 0 {
		t.Fatalf("%v %+v", err, rep.Nodes)
	}
	if left := rep.PodsLeft(); len(left) > 0 || len(f.Live()) > 0 {
		t.Errorf("reported left %v, on the server %v", left, f.Live())
	}
	// Ended once the pod was seen gone, not at DeleteWait.
	if took >= o.DeleteWait {
		t.Errorf("the run took %v", took)
	}
	if n := f.PodLists.Load(); n > 10 {
		t.Errorf("%d lists", n)
	}
}
