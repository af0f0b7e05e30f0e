package cluster

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/wincni/diag/cluster/clustertest"
)

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
