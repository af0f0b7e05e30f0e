package monitor

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wincni/diag/gen"
)

// A live round through the collectors over a fake HNS: the objects are
// counted, a RemoteSubnetRoute removed between rounds makes OVL-02 appear
// as a series, and putting it back clears it.
func TestLiveRoundsFindingAppearsAndClears(t *testing.T) {
	f := newFakeNode(t, gen.ClusterNode{Nodes: 5, LocalPods: 5, VFPPorts: 3})
	var log logLines
	mon := New(f.source(t), Options{Logf: log.logf, Version: "test"})

	round(t, mon)
	if got := mustValue(t, mon, "diag_monitor_rounds_total", "result", "ok"); got != 1 {
		t.Fatalf("rounds ok = %v, want 1 (log: %s)", got, &log)
	}
	if s := findingSeries(t, mon); len(s) != 0 {
		t.Fatalf("healthy node: series %v, want none", s)
	}
	if got := mustValue(t, mon, "diag_monitor_hns_objects", "kind", "networks"); got != 1 {
		t.Errorf("networks = %v, want 1", got)
	}
	// gen: 5 local pods + the source VIP endpoint; 20·N remote ones.
	if got := mustValue(t, mon, "diag_monitor_hns_objects", "kind", "remote_endpoints"); got < 80 {
		t.Errorf("remote endpoints = %v, want the fixture's 20 per node", got)
	}
	if got := mustValue(t, mon, "diag_monitor_vfp_state_present"); got != 1 {
		t.Errorf("vfp state present = %v, want 1 (VFPEvery 1)", got)
	}
	if got := mustValue(t, mon, "diag_monitor_endpoints_without_vfp_rules"); got != 0 {
		t.Errorf("endpoints without VFP rules = %v on a healthy node", got)
	}
	if ran := mustValue(t, mon, "diag_monitor_rules", "state", "ran"); ran < 30 {
		t.Errorf("rules ran = %v: the round's state should let most per-node rules run", ran)
	}
	if code, body := get(t, mon, "/readyz"); code != 200 {
		t.Errorf("/readyz = %d %q after a good round", code, body)
	}

	restore := f.dropRemoteSubnetRoute(t)
	round(t, mon)
	if s := findingSeries(t, mon); !hasSeries(s, "OVL-02 fail") {
		t.Fatalf("after dropping a RemoteSubnetRoute: series %v, want OVL-02 fail", s)
	}
	if got := mustValue(t, mon, "diag_monitor_findings", "severity", "fail"); got < 1 {
		t.Errorf("fail findings = %v", got)
	}
	restore()
	round(t, mon)
	if s := findingSeries(t, mon); len(s) != 0 {
		t.Fatalf("after restoring the route: series %v, want none", s)
	}
}

// HNS that does not answer: the round still runs what it can, says so in
// diag_monitor_source_up and /readyz, and keeps the open findings of the
// rules that could not run instead of calling them resolved.
func TestHNSUnreachableKeepsRunning(t *testing.T) {
	f := newFakeNode(t, gen.ClusterNode{Nodes: 5, LocalPods: 5})
	var log logLines
	mon := New(f.source(t), Options{Logf: log.logf})
	f.dropRemoteSubnetRoute(t)
	round(t, mon)
	if !hasSeries(findingSeries(t, mon), "OVL-02 fail") {
		t.Fatal("OVL-02 not open before HNS went away")
	}
	f.setHNSDown(errHNSGone)
	round(t, mon)
	if got := mustValue(t, mon, "diag_monitor_source_up", "source", SourceHNS); got != 0 {
		t.Errorf("source_up{hns} = %v with HNS down", got)
	}
	code, body := get(t, mon, "/readyz")
	if code != 503 || !strings.Contains(body, "hns:") || !strings.Contains(body, "RPC server is unavailable") {
		t.Errorf("/readyz = %d %q, want 503 naming HNS and why", code, body)
	}
	if !hasSeries(findingSeries(t, mon), "OVL-02 fail") {
		t.Errorf("OVL-02 resolved while its rule could not run: %v", findingSeries(t, mon))
	}
	if got := mustValue(t, mon, "diag_monitor_node_unjudged"); got != 1 {
		t.Errorf("node_unjudged = %v without HNS state, want 1", got)
	}
	if code, _ := get(t, mon, "/healthz"); code != 200 {
		t.Errorf("/healthz = %d: the monitor is alive", code)
	}
	if !strings.Contains(log.String(), "hns: ") {
		t.Errorf("the log does not say HNS is down:\n%s", &log)
	}
	f.setHNSDown(nil)
	round(t, mon)
	if got := mustValue(t, mon, "diag_monitor_source_up", "source", SourceHNS); got != 1 {
		t.Errorf("source_up{hns} = %v after HNS came back", got)
	}
	if !strings.Contains(log.String(), "hns: answering again") {
		t.Errorf("the log does not say HNS is back:\n%s", &log)
	}
}

// SIGTERM (ctx ending) during a round: Round returns at once, publishes
// nothing of the partial state, and leaves no round bundle behind.
func TestCancelledRoundIsAbandoned(t *testing.T) {
	f := newFakeNode(t, gen.ClusterNode{Nodes: 5, LocalPods: 5})
	src := f.source(t)
	mon := New(src, Options{})
	round(t, mon)
	f.mu.Lock()
	f.delay = time.Hour
	f.mu.Unlock()
	f.dropRemoteSubnetRoute(t)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	err := mon.Round(ctx)
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("the round took %s after its context ended", took)
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Round = %v, want context.Canceled", err)
	}
	if got := mustValue(t, mon, "diag_monitor_rounds_total", "result", "ok"); got != 1 {
		t.Errorf("rounds ok = %v, want 1: the abandoned round is not counted", got)
	}
	if got := mustValue(t, mon, "diag_monitor_rounds_total", "result", "failed"); got != 0 {
		t.Errorf("rounds failed = %v: an abandoned round is not a failure of the node", got)
	}
	left, _ := filepath.Glob(filepath.Join(src.Dir, "*"))
	if len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}

// Run ends when its context ends, between rounds too, and returns nil
// (the command then exits 0).
func TestRunStopsOnCancel(t *testing.T) {
	f := newFakeNode(t, gen.ClusterNode{Nodes: 3, LocalPods: 2})
	mon := New(f.source(t), Options{Interval: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mon.Run(ctx) }()
	deadline := time.Now().Add(20 * time.Second)
	for mon.lastGood.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run = %v, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after its context ended")
	}
}

// Replay: one bundle per round, the finding of the broken seed appears
// and clears with the fixed one, and the source ends with ErrReplayDone.
func TestReplayRounds(t *testing.T) {
	broken, fixed := filepath.Join("..", "testdata", "bundles", "seed-broken"), filepath.Join("..", "testdata", "bundles", "seed-fixed")
	mon := New(&ReplaySource{Paths: []string{broken, fixed}}, Options{Rounds: 3})
	round(t, mon)
	if !hasSeries(findingSeries(t, mon), "OVL-01 fail") {
		t.Fatalf("seed-broken: series %v, want OVL-01 fail", findingSeries(t, mon))
	}
	round(t, mon)
	if hasSeries(findingSeries(t, mon), "OVL-01 fail") {
		t.Fatalf("seed-fixed: OVL-01 still open: %v", findingSeries(t, mon))
	}
	if err := mon.Round(context.Background()); !errors.Is(err, ErrReplayDone) {
		t.Fatalf("third round = %v, want ErrReplayDone", err)
	}
	if got := mustValue(t, mon, "diag_monitor_rounds_total", "result", "ok"); got != 2 {
		t.Errorf("rounds ok = %v, want 2 (the end of the replay is no round)", got)
	}
}

// A replayed input that is not a bundle fails its round, says so, and the
// next bundle's round runs.
func TestReplayBadBundle(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.zip")
	if err := os.WriteFile(bad, []byte("PK\x03\x04 not a zip"), 0o600); err != nil {
		t.Fatal(err)
	}
	var log logLines
	mon := New(&ReplaySource{Paths: []string{bad, filepath.Join("..", "testdata", "bundles", "seed-broken")}}, Options{Logf: log.logf})
	round(t, mon)
	if got := mustValue(t, mon, "diag_monitor_rounds_total", "result", "failed"); got != 1 {
		t.Errorf("rounds failed = %v, want 1", got)
	}
	if got := mustValue(t, mon, "diag_monitor_source_up", "source", SourceReplay); got != 0 {
		t.Errorf("source_up{replay} = %v after an unreadable bundle", got)
	}
	if !strings.Contains(log.String(), "bad.zip") {
		t.Errorf("the log does not name the bad bundle:\n%s", &log)
	}
	round(t, mon)
	if got := mustValue(t, mon, "diag_monitor_rounds_total", "result", "ok"); got != 1 {
		t.Errorf("rounds ok = %v after a good bundle", got)
	}
}

// An API server the watches cannot reach: the round runs on HNS, the
// metric and /readyz say the Kubernetes side is missing.
func TestKubernetesUnreachableKeepsRunning(t *testing.T) {
	f := newFakeNode(t, gen.ClusterNode{Nodes: 5, LocalPods: 5})
	src := f.source(t)
	src.Kube = fakeKube{f: f, err: errors.New(`Get "https://10.0.0.1:443/api/v1/nodes": dial tcp 10.0.0.1:443: connect: connection refused`)}
	mon := New(src, Options{})
	f.dropRemoteSubnetRoute(t)
	round(t, mon)
	if got := mustValue(t, mon, "diag_monitor_rounds_total", "result", "ok"); got != 1 {
		t.Errorf("rounds ok = %v", got)
	}
	if got := mustValue(t, mon, "diag_monitor_source_up", "source", SourceKubernetes); got != 0 {
		t.Errorf("source_up{kubernetes} = %v", got)
	}
	if code, body := get(t, mon, "/readyz"); code != 503 || !strings.Contains(body, "kubernetes: ") || !strings.Contains(body, "connection refused") {
		t.Errorf("/readyz = %d %q", code, body)
	}
	if got := mustValue(t, mon, "diag_monitor_rules", "state", "skipped"); got == 0 {
		t.Error("no rule skipped without the Kubernetes objects")
	}
	if !hasSeries(findingSeries(t, mon), "OVL-02 fail") {
		t.Errorf("the HNS rules did not run: %v", findingSeries(t, mon))
	}
}

// No credentials at all: not only the log at start says so, every round's
// source_up{kubernetes} and /readyz do.
func TestNoCredentialsSaid(t *testing.T) {
	f := newFakeNode(t, gen.ClusterNode{Nodes: 5, LocalPods: 5})
	src := f.source(t)
	src.Kube = nil
	src.KubeErr = errors.New("no credentials (no kubeconfig, not in a pod): no Events, no Kubernetes objects for the rules")
	mon := New(src, Options{})
	round(t, mon)
	if got := mustValue(t, mon, "diag_monitor_source_up", "source", SourceKubernetes); got != 0 {
		t.Errorf("source_up{kubernetes} = %v without credentials", got)
	}
	if code, body := get(t, mon, "/readyz"); code != 503 || !strings.Contains(body, "kubernetes: no credentials") {
		t.Errorf("/readyz = %d %q, want 503 saying there are no credentials", code, body)
	}
}

// A replayed bundle that does not open is logged once, naming it, not
// once by the round and again by the replay source.
func TestReplayErrorLoggedOnce(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.zip")
	if err := os.WriteFile(bad, []byte("PK\x03\x04 not a zip"), 0o600); err != nil {
		t.Fatal(err)
	}
	var log logLines
	mon := New(&ReplaySource{Paths: []string{bad}}, Options{Logf: log.logf})
	round(t, mon)
	n := 0
	for _, l := range log.lines {
		if strings.Contains(l, "bad.zip") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d log lines name bad.zip, want 1:\n%s", n, &log)
	}
}
