package cluster

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/wincni/diag/cluster/clustertest"
)

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

func TestOneOSRefusedIsNotTheRunsAnswer(t *testing.T) {
	f := newFake(t, clustertest.Node{Name: "w1", OS: "windows"}, clustertest.Node{Name: "w2", OS: "windows"},
		clustertest.Node{Name: "l1", OS: "linux", Behave: clustertest.NeverStarts}, clustertest.Node{Name: "l2", OS: "linux", Behave: clustertest.NeverStarts})
	f.RefuseOS["windows"] = `pods "x" is forbidden: ValidatingAdmissionPolicy 'no-hp' with binding 'no-hp' denied request: no HostProcess`
	rep, err := Collect(context.Background(), apiFor(t, f), nil, chooseAll(t, f), options(t, time.Second, 4))
	if err != nil || rep.Count(StatusFailed) != 2 || rep.Count(StatusTimeout) != 2 {
		t.Errorf("%v %+v", err, rep.Nodes)
	}
}

func TestCreateFailureSaidOnce(t *testing.T) {
	f := newFake(t, clustertest.Node{Name: "w1", OS: "windows"})
	choices := chooseAll(t, f)
	f.FailCreates.Store(100)
	rep, _ := Collect(context.Background(), apiFor(t, f), nil, choices, options(t, 5*time.Second, 1))
	if r := rep.Nodes[0].Reason; !strings.HasPrefix(r, "create pods: 503") || strings.Count(r, "create") != 1 {
		t.Errorf("%q", r)
	}
}

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
