package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/wincni/diag/cluster"
	"github.com/wincni/diag/cluster/clustertest"
)

// runDiagCtx runs diag as run does, with a context that the test ends
// (Ctrl-C: the signal handler ends the command's context alike).
func runDiagCtx(ctx context.Context, args ...string) result {
	var out, errb bytes.Buffer
	e := &env{stdout: &out, stderr: &errb, getenv: func(string) string { return "" }, now: time.Now,
		isTerminal: func() bool { return false }, termWidth: func() int { return 120 }, stderrTerminal: func() bool { return false }}
	ran := false
	root := newRootCommand(e, &ran)
	root.SetArgs(args)
	code, msg := exitCode(root.ExecuteContext(ctx))
	if msg != "" {
		errb.WriteString("diag: " + msg + "\n")
	}
	return result{code, out.String(), errb.String()}
}

// Ctrl-C once a bundle arrived, another node still collecting: the pods
// go, cluster.json is written, nothing is analyzed, and diag exits 3 (as
// for nodes without a bundle, and as a Ctrl-C before any bundle) saying
// how far it came; never 1.
func TestCollectClusterInterruptedAfterABundle(t *testing.T) {
	f := clustertest.NewServer(t, frameBundle,
		clustertest.Node{Name: "ok", OS: "windows", Behave: clustertest.OK},
		clustertest.Node{Name: "hang", OS: "linux", Behave: clustertest.Hang})
	f.Bundle = func(string) []byte { return bundleOf(t, "../../testdata/bundles/seed-broken") }
	dir := filepath.Join(t.TempDir(), "out")
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	go func() {
		for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
			if _, err := os.Stat(filepath.Join(dir, "ok.zip")); err == nil {
				cancel(errors.New("interrupt signal received"))
				return
			}
		}
	}()
	r := runDiagCtx(ctx, "collect", "--cluster", "--image", testImage, "--kubeconfig", fakeKubeconfig(t, f.Srv.URL), "--output-dir", dir, "--node-timeout", "30s", "--parallel", "2")
	last := lastLineOf(r.stderr)
	if r.code != 3 || !strings.Contains(last, "interrupted (interrupt signal received): 1 of 2 node(s) gave a bundle") || !strings.Contains(last, "diag analyze "+filepath.Join(dir, "*.zip")) {
		t.Errorf("exit %d: %s", r.code, r.stderr)
	}
	if r.stdout != "" {
		t.Errorf("analyzed after the Ctrl-C:\n%s", r.stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "cluster.json")); err != nil {
		t.Error(err)
	}
	if live := f.Live(); len(live) > 0 {
		t.Errorf("pods left: %v", live)
	}
}

// Ctrl-C while --cleanup --force waits for a pod whose kubelet does not
// confirm its delete: the pod is named Terminating with the command that
// removes it, exit 3; not "not deleted" and exit 2 as if refused.
func TestCleanupInterruptedSaysTerminating(t *testing.T) {
	f := clustertest.NewServer(t, frameBundle, clustertest.Node{Name: "w1", OS: "windows", Behave: clustertest.Stuck})
	api, err := cluster.NewAPI(&rest.Config{Host: f.Srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := cluster.PodSpec{Namespace: "diag", Image: testImage, Run: "old1", Deadline: time.Minute}.Manifest(cluster.Node{Name: "w1", OS: "windows"})
	if err := api.CreatePod(context.Background(), "diag", m); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	time.AfterFunc(500*time.Millisecond, func() { cancel(errors.New("interrupt signal received")) })
	r := runDiagCtx(ctx, "collect", "--cluster", "--cleanup", "--force", "--kubeconfig", fakeKubeconfig(t, f.Srv.URL))
	if r.code != 3 || !strings.Contains(r.stderr, "is still Terminating: the wait was interrupted") || !strings.Contains(r.stderr, "diag collect --cluster --cleanup --force --namespace diag removes it") ||
		strings.Contains(r.stderr, "not deleted") || !strings.Contains(lastLineOf(r.stderr), "interrupted") {
		t.Errorf("exit %d:\n%s", r.code, r.stderr)
	}
}

func lastLineOf(s string) string {
	s = strings.TrimSpace(s)
	return s[strings.LastIndex(s, "\n")+1:]
}

// Ctrl-C while --cleanup lists the pods (a server that keeps answering
// 503): nothing was deleted, said so, exit 3; not 1.
func TestCleanupInterruptedBeforeTheList(t *testing.T) {
	f := clustertest.NewServer(t, frameBundle, clustertest.Node{Name: "w1", OS: "windows"})
	f.Unavail.Store(1000)
	f.RetryAfter = "10"
	ctx, cancel := context.WithCancelCause(context.Background())
	time.AfterFunc(300*time.Millisecond, func() { cancel(errors.New("interrupt signal received")) })
	r := runDiagCtx(ctx, "collect", "--cluster", "--cleanup", "--kubeconfig", fakeKubeconfig(t, f.Srv.URL))
	if r.code != 3 || !strings.Contains(lastLineOf(r.stderr), "interrupted before any pod was deleted") {
		t.Errorf("exit %d:\n%s", r.code, r.stderr)
	}
}
