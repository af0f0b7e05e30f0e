package monitor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/wincni/diag/bundle"
	"github.com/wincni/diag/gen"
)

const plantedSecret = "PLANTEDs3cr3t"

// The flight recorder: every new fail writes a full bundle of the moment
// (the collectors of diag collect, redacted as collect redacts), the
// Event names it, and only the last Keep are kept.
func TestRecorderWritesRedactedBundlesAndRotates(t *testing.T) {
	srv, _, api := eventAPI(t)
	f := newFakeNode(t, gen.ClusterNode{Nodes: 5, LocalPods: 5, VFPPorts: 2})
	src := f.source(t)
	// A Calico kubeconfig with its token, where the CNI configuration is.
	src.Env.FS.(fstest.MapFS)["etc/cni/net.d/calico-kubeconfig"] = &fstest.MapFile{Data: []byte("apiVersion: v1\nkind: Config\nusers:\n- name: calico\n  user:\n    token: eyJhbGciOiJSUzI1NiJ9." + plantedSecret + "\n")}
	dir := filepath.Join(t.TempDir(), "records")
	clock := &fakeClock{t: time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)}
	mon := New(src, Options{Recorder: &Recorder{Dir: dir, Keep: 2, Node: "node-0000"}, Events: &Eventer{Client: api, Node: "node-0000", Now: clock.now}, Now: clock.now})

	round(t, mon) // healthy: nothing recorded
	if kept, _ := (&Recorder{Dir: dir, Node: "node-0000"}).Kept(); len(kept) != 0 {
		t.Fatalf("healthy node: recorded %v", kept)
	}
	var restore func()
	for i := range 3 {
		clock.t = clock.t.Add(time.Minute)
		restore = f.dropRemoteSubnetRoute(t)
		round(t, mon)
		clock.t = clock.t.Add(time.Minute)
		restore()
		round(t, mon)
		if got := mustValue(t, mon, "diag_monitor_recordings_total", "result", "written"); got != float64(i+1) {
			t.Fatalf("after fail %d: recordings written = %v", i+1, got)
		}
	}
	kept, err := (&Recorder{Dir: dir, Node: "node-0000"}).Kept()
	if err != nil {
		t.Fatal(err)
	}
	if len(kept) != 2 || !strings.Contains(kept[0], "20261124T0903") || !strings.Contains(kept[1], "20261124T0905") {
		t.Fatalf("kept %v, want the last two (09:03 and 09:05)", kept)
	}
	if got := mustValue(t, mon, "diag_monitor_recordings_kept"); got != 2 {
		t.Errorf("recordings_kept = %v", got)
	}
	left, _ := os.ReadDir(dir)
	for _, e := range left {
		if !strings.HasPrefix(e.Name(), "diag-node-0000-20261124T0903") && !strings.HasPrefix(e.Name(), "diag-node-0000-20261124T0905") {
			t.Errorf("left in the record directory: %s", e.Name())
		}
	}

	// The bundle is collect's: every collector, the VFP dumps, redacted.
	path := filepath.Join(dir, kept[1])
	b, err := bundle.Open(path, bundle.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, want := range []string{"hns/v2/networks.json", "host/firewall.json", "vfp/ports.txt", "config/cni/calico-kubeconfig"} {
		if !b.Has(want) {
			t.Errorf("recorded bundle lacks %s: %v", want, b.Names())
		}
	}
	data, _ := os.ReadFile(path)
	cni, _ := b.ReadFile("config/cni/calico-kubeconfig")
	if strings.Contains(string(cni), plantedSecret) || strings.Contains(string(data), plantedSecret) {
		t.Error("the recorded bundle holds the token")
	}
	// The Event of the fail names it.
	var named bool
	for _, ev := range withRule(reasonsOf(srv.EventsOf("Node", "node-0000"), ReasonAppeared), "OVL-02") {
		named = named || strings.Contains(ev["message"].(string), "Bundle: "+path)
	}
	if !named {
		t.Errorf("no OVL-02 Event names %s", path)
	}
}

// A record directory that cannot be made: the monitor runs its rounds,
// says so in the metric and /readyz, and records nothing.
func TestRecordDirUnusable(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	f := newFakeNode(t, gen.ClusterNode{Nodes: 5, LocalPods: 5})
	f.dropRemoteSubnetRoute(t)
	mon := New(f.source(t), Options{Recorder: &Recorder{Dir: filepath.Join(file, "records"), Node: "node-0000"}})
	round(t, mon)
	if got := mustValue(t, mon, "diag_monitor_rounds_total", "result", "ok"); got != 1 {
		t.Errorf("rounds ok = %v", got)
	}
	if got := mustValue(t, mon, "diag_monitor_source_up", "source", SourceRecordDir); got != 0 {
		t.Errorf("source_up{record_dir} = %v", got)
	}
	if got := mustValue(t, mon, "diag_monitor_recordings_total", "result", "failed"); got != 1 {
		t.Errorf("recordings failed = %v", got)
	}
	if code, body := get(t, mon, "/readyz"); code != 503 || !strings.Contains(body, "record_dir:") {
		t.Errorf("/readyz = %d %q", code, body)
	}
	if !hasSeries(findingSeries(t, mon), "OVL-02 fail") {
		t.Error("the finding is not published when it could not be recorded")
	}
}

// Replay records the replayed bundle through bundle redact's filter.
func TestReplayRecord(t *testing.T) {
	dir := t.TempDir()
	mon := New(&ReplaySource{Paths: []string{filepath.Join("..", "testdata", "bundles", "seed-broken")}, Version: "test"}, Options{Recorder: &Recorder{Dir: dir, Node: "win-1"}})
	round(t, mon)
	kept, _ := (&Recorder{Dir: dir, Node: "win-1"}).Kept()
	if len(kept) != 1 || !strings.HasSuffix(kept[0], "-OVL-01.zip") {
		t.Fatalf("recorded %v, want one bundle named after OVL-01", kept)
	}
	b, err := bundle.Open(filepath.Join(dir, kept[0]), bundle.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if !b.Has("hns/v1/networks.json") || b.Manifest == nil || b.Manifest.Options["monitor.replayed"] != "seed-broken" {
		t.Errorf("recorded bundle: %v, manifest %+v", b.Names(), b.Manifest)
	}
}
