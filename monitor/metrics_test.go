package monitor

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"

	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/gen"
)

// The finding series are capped, worst first, and what the cap left out
// is counted; the per-severity totals count every finding.
func TestFindingSeriesCap(t *testing.T) {
	m := newMetrics("test", 2)
	st := &roundState{open: map[string]finding.Finding{}, objects: map[string]int{}}
	for _, f := range []finding.Finding{
		{ID: "SVC-01", Severity: finding.Info, Summary: "a"},
		{ID: "OVL-02", Severity: finding.Fail, Subjects: []string{"node:b"}},
		{ID: "OVL-02", Severity: finding.Fail, Subjects: []string{"node:a"}},
		{ID: "EP-01", Severity: finding.Warn, Summary: "c"},
	} {
		st.open[findingKey(f)] = f
	}
	m.setState(st, time.Now())
	mon := &Monitor{m: m}
	if got := findingSeries(t, mon); len(got) != 2 || got[0] != "OVL-02 fail" || got[1] != "OVL-02 fail" {
		t.Errorf("series %v, want the two fails", got)
	}
	if got := mustValue(t, mon, "diag_monitor_finding_series_dropped"); got != 2 {
		t.Errorf("dropped = %v, want 2", got)
	}
	if got := mustValue(t, mon, "diag_monitor_findings", "severity", "info"); got != 1 {
		t.Errorf("findings{info} = %v, want 1 though its series was dropped", got)
	}
}

// Subjects make the label without HNS GUIDs (renewed by an HNS restart),
// sorted, cut to a bounded length.
func TestSubjectLabel(t *testing.T) {
	f := finding.Finding{Subjects: []string{"network:flannel.4096", "endpoint:6A1F0B2C-3D4E-4F50-8A6B-7C8D9E0F1A2B", "address:10.0.2.15"}}
	if got := subjectLabel(f); got != "address:10.0.2.15,network:flannel.4096" {
		t.Errorf("subjectLabel = %q", got)
	}
	long := finding.Finding{Subjects: []string{"node:" + strings.Repeat("ü", 100)}}
	if got := subjectLabel(long); len(got) > maxLabel+len("…") || !strings.HasSuffix(got, "…") {
		t.Errorf("long subject: %d bytes %q", len(got), got)
	}
}

// What /metrics serves after real rounds passes client_golang's linter
// (the checks promtool check metrics makes; make test-monitor runs the
// real promtool), has HELP for every diag metric, and leaves absent what
// the round did not see.
func TestMetricsLint(t *testing.T) {
	f := newFakeNode(t, gen.ClusterNode{Nodes: 5, LocalPods: 5})
	src := f.source(t)
	src.VFPEvery = 0
	mon := New(src, Options{Recorder: &Recorder{Dir: t.TempDir(), Node: "node-0000"}})
	f.dropRemoteSubnetRoute(t)
	round(t, mon)
	code, body := get(t, mon, "/metrics")
	if code != 200 {
		t.Fatalf("/metrics = %d", code)
	}
	problems, err := promlint.New(strings.NewReader(body)).Lint()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		if strings.HasPrefix(p.Metric, "diag_") {
			t.Errorf("lint: %s: %s", p.Metric, p.Text)
		}
	}
	for _, want := range []string{"# HELP diag_monitor_finding ", `diag_monitor_finding{rule="OVL-02",severity="fail",subject="`, "diag_monitor_vfp_state_present 0",
		`diag_monitor_hns_service_observable{reason="not_windows"} 0`, "diag_monitor_round_duration_seconds_bucket", `diag_monitor_source_up{source="record_dir"} 1`} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	for _, absent := range []string{"diag_monitor_endpoints_without_vfp_rules ", "diag_monitor_hns_service_threads"} {
		if strings.Contains(body, absent) {
			t.Errorf("/metrics has %q, which the round did not see", absent)
		}
	}
}

// The HNS service's process: gauges while it runs, a restart counted when
// its process changes, and nothing but "unobservable" where it cannot be
// read.
func TestHNSServiceMetrics(t *testing.T) {
	start := time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC)
	looks := []HNSServiceStats{
		{Running: true, PID: 1200, Started: start, Threads: 40, Handles: 900, WorkingSet: 50 << 20, Private: 30 << 20},
		{Running: true, PID: 1200, Started: start, Threads: 4000, Handles: 90000, WorkingSet: 900 << 20, Private: 800 << 20},
		{Running: false},
		{Running: true, PID: 3300, Started: start.Add(time.Hour), Threads: 38},
		{Running: true, PID: 3300, Started: start.Add(time.Hour), Threads: 39},
		{Unobservable: "access_denied"},
	}
	i := 0
	read := func() HNSServiceStats { s := looks[min(i, len(looks)-1)]; i++; return s }
	mon := New(&ReplaySource{Paths: []string{filepath.Join("..", "testdata", "bundles", "seed-fixed")}}, Options{HNSService: read})
	mon.readHNSService()
	mon.readHNSService()
	if got := mustValue(t, mon, "diag_monitor_hns_service_threads"); got != 4000 {
		t.Errorf("threads = %v", got)
	}
	if got := mustValue(t, mon, "diag_monitor_hns_service_memory_bytes", "kind", "private"); got != 800<<20 {
		t.Errorf("private memory = %v", got)
	}
	mon.readHNSService() // stopped
	if got := mustValue(t, mon, "diag_monitor_hns_service_up"); got != 0 {
		t.Errorf("up = %v while stopped", got)
	}
	if _, ok := value(t, mon, "diag_monitor_hns_service_threads"); ok {
		t.Error("threads of a stopped service")
	}
	mon.readHNSService() // running again, another process
	mon.readHNSService()
	if got := mustValue(t, mon, "diag_monitor_hns_service_restarts_total"); got != 1 {
		t.Errorf("restarts = %v, want 1", got)
	}
	mon.readHNSService()
	if got := mustValue(t, mon, "diag_monitor_hns_service_observable", "reason", "access_denied"); got != 0 {
		t.Errorf("observable{access_denied} = %v", got)
	}
}
