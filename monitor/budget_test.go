//go:build linux

package monitor

import (
	"bufio"
	"context"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/wincni/diag/gen"
)

// cpuTime is the process's user and system CPU time so far.
func cpuTime(t testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procStatus reads a "VmRSS:    1234 kB" line of /proc/self/status, in bytes.
func procStatus(t testing.TB, key string) uint64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), key+":"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	t.Fatalf("no %s in /proc/self/status", key)
	return 0
}

// resetPeak forgets what the set-up (generating the fixture) took, so
// that VmHWM measures the rounds: clear_refs 5 resets the peak RSS.
func resetPeak(t testing.TB) {
	runtime.GC()
	debug.FreeOSMemory()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Logf("peak RSS not reset (%v): it includes the set-up", err)
	}
}

// memEvents is an EventAPI in memory: the 24-hour run counts Events, not
// HTTP round trips.
type memEvents struct {
	mu      sync.Mutex
	created int
	patched int
}

func (m *memEvents) Create(_ context.Context, ev *corev1.Event) (*corev1.Event, error) {
	m.mu.Lock()
	m.created++
	m.mu.Unlock()
	return ev, nil
}

func (m *memEvents) List(context.Context, string, string) ([]corev1.Event, error) { return nil, nil }

func (m *memEvents) Patch(context.Context, string, string, []byte) error {
	m.mu.Lock()
	m.patched++
	m.mu.Unlock()
	return nil
}

// BenchmarkRound1000Nodes is one live round of a node of a 1,000-node
// flannel VXLAN cluster (20,000 remote endpoints, 5,000 load balancers,
// 1,000 Nodes, 5,000 Services) through the fake HNS: HNS and the small
// collectors into the round's directory, formats, the per-node rules, the
// metrics. BenchmarkVFPRound1000Nodes is the round that also dumps VFP
// (every --vfp-every rounds; 20 ports of 999 encap rules each). Each
// reports the CPU time of a round (process user+system, GC included),
// that as a share of one core at the default interval, and the process's
// RSS, current and peak, with the command's soft memory limit.
//
//	go test -run '^$' -bench 'Round1000Nodes' -benchtime 10x ./monitor
func BenchmarkRound1000Nodes(b *testing.B)    { benchRound(b, false) }
func BenchmarkVFPRound1000Nodes(b *testing.B) { benchRound(b, true) }

func benchRound(b *testing.B, vfp bool) {
	f := newFakeNode(b, gen.ClusterNode{Nodes: 1000, LocalPods: 100, VFPPorts: 20})
	src := f.source(b)
	src.VFPEvery = 0
	if vfp {
		src.VFPEvery = 1
	}
	mon := New(src, Options{})
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(DefaultMemoryLimit))
	resetPeak(b)
	round(b, mon) // the first round warms what the others reuse
	runtime.GC()
	cpu0 := cpuTime(b)
	b.ResetTimer()
	for b.Loop() {
		round(b, mon)
	}
	b.StopTimer()
	perRound := (cpuTime(b) - cpu0) / time.Duration(b.N)
	b.ReportMetric(perRound.Seconds(), "cpu-s/round")
	b.ReportMetric(100*perRound.Seconds()/DefaultInterval.Seconds(), "%core@60s")
	b.ReportMetric(float64(procStatus(b, "VmRSS"))/(1<<20), "rss-MB")
	b.ReportMetric(float64(procStatus(b, "VmHWM"))/(1<<20), "peak-rss-MB")
	if ok := mustValue(b, mon, "diag_monitor_rounds_total", "result", "ok"); ok != float64(b.N+1) {
		b.Fatalf("rounds ok = %v of %d", ok, b.N+1)
	}
	if got, _ := value(b, mon, "diag_monitor_vfp_state_present"); got != b2f(vfp) {
		b.Fatalf("vfp state present = %v", got)
	}
}

// TestBudget holds the monitor to its budget on the 1,000-node fixture
// with the command's soft memory limit: a round under 1 s of CPU, under 2%
// of one core at the default interval (the VFP round of every
// --vfp-every included), RSS under 80 MB; then a day of rounds (1,440 at
// one a minute, the node breaking and healing, Events and the flight
// recorder on) without growth of the heap or of goroutines. make
// test-monitor runs it (DIAG_TEST_BUDGET=1). The day's rounds are of a
// 50-node fixture (a leak grows per round, not per node);
// DIAG_BUDGET_DAY_NODES=1000 makes them the 1,000-node one (about 15
// minutes of CPU).
func TestBudget(t *testing.T) {
	if os.Getenv("DIAG_TEST_BUDGET") == "" {
		t.Skip("make test-monitor runs the budget test (DIAG_TEST_BUDGET=1)")
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(DefaultMemoryLimit))
	f := newFakeNode(t, gen.ClusterNode{Nodes: 1000, LocalPods: 100, VFPPorts: 20})
	src := f.source(t)
	src.VFPEvery = 10
	mon := New(src, Options{})
	resetPeak(t)
	const n = 10  // one VFP round (the last), nine without
	round(t, mon) // the first round (VFP too) warms what the others reuse
	var vfpCPU, plainCPU time.Duration
	for i := range n {
		runtime.GC()
		c := cpuTime(t)
		round(t, mon)
		if d := cpuTime(t) - c; i == n-1 {
			vfpCPU = d
		} else {
			plainCPU += d
		}
	}
	plainCPU /= n - 1
	avg := (vfpCPU + plainCPU*(n-1)) / n
	rss, peak := procStatus(t, "VmRSS"), procStatus(t, "VmHWM")
	share := avg.Seconds() / DefaultInterval.Seconds()
	t.Logf("1,000-node rounds: %.3f s CPU without VFP, %.3f s with (20 ports, 999 encap rules each), %.3f s on average at --vfp-every 10: %.2f%% of one core at %s; RSS %.1f MB, peak %.1f MB",
		plainCPU.Seconds(), vfpCPU.Seconds(), avg.Seconds(), 100*share, DefaultInterval, float64(rss)/(1<<20), float64(peak)/(1<<20))
	if plainCPU >= time.Second {
		t.Errorf("a round takes %s of CPU, budget 1 s", plainCPU)
	}
	if vfpCPU >= time.Second {
		t.Errorf("the round that reads VFP takes %s of CPU, budget 1 s", vfpCPU)
	}
	if share >= 0.02 {
		t.Errorf("%.2f%% of one core at the default interval, budget 2%%", 100*share)
	}
	if rss >= 80<<20 {
		t.Errorf("RSS %.1f MB after the rounds, budget 80 MB", float64(rss)/(1<<20))
	}
	dayNodes := 50
	if v, err := strconv.Atoi(os.Getenv("DIAG_BUDGET_DAY_NODES")); err == nil && v > 1 {
		dayNodes = v
	}
	f = newFakeNode(t, gen.ClusterNode{Nodes: dayNodes, LocalPods: 20, VFPPorts: 5})
	src = f.source(t)
	src.VFPEvery = 10
	day(t, f, src, dayNodes)
}

// day runs 1,440 rounds a simulated minute apart and compares the heap
// and the goroutines after the first hour with the end of the day.
func day(t *testing.T, f *fakeNode, src *LiveSource, nodes int) {
	clock := &fakeClock{t: time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)}
	events := &memEvents{}
	mon := New(src, Options{Now: clock.now, Events: &Eventer{Client: events, Node: "node-0000", Now: clock.now},
		Recorder: &Recorder{Dir: t.TempDir(), Keep: 3, Node: "node-0000"}})
	var restore func()
	var hourHeap uint64
	var hourGoroutines int
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	start := time.Now()
	for i := range 1440 {
		// Break for ten minutes every hour and a half, then heal.
		switch i % 90 {
		case 30:
			restore = f.dropRemoteSubnetRoute(t)
		case 40:
			restore()
		}
		round(t, mon)
		clock.t = clock.t.Add(time.Minute)
		if i == 59 {
			hourHeap, hourGoroutines = heap(), runtime.NumGoroutine()
		}
	}
	endHeap, endGoroutines := heap(), runtime.NumGoroutine()
	t.Logf("a day of %d-node rounds (%s): heap after 1 h %.1f MB, after 24 h %.1f MB; goroutines %d then %d; %d Events created, %d counted up; RSS %.1f MB",
		nodes, time.Since(start).Round(time.Second), float64(hourHeap)/(1<<20), float64(endHeap)/(1<<20), hourGoroutines, endGoroutines,
		events.created, events.patched, float64(procStatus(t, "VmRSS"))/(1<<20))
	if ok := mustValue(t, mon, "diag_monitor_rounds_total", "result", "ok"); ok != 1440 {
		t.Errorf("rounds ok = %v of 1440", ok)
	}
	if w := mustValue(t, mon, "diag_monitor_recordings_total", "result", "written"); w < 10 {
		t.Errorf("recordings written = %v: the day's fails were not recorded", w)
	}
	// Growth would be a leak per round: 1,380 rounds of a few KB each
	// shows as megabytes; allow 10% and 1 MB of noise.
	if endHeap > hourHeap+hourHeap/10+1<<20 {
		t.Errorf("heap grew over the day: %d → %d bytes", hourHeap, endHeap)
	}
	if endGoroutines > hourGoroutines+2 {
		t.Errorf("goroutines grew over the day: %d → %d", hourGoroutines, endGoroutines)
	}
}
