package collectors

import (
	"context"
	"os"
	"testing"
	"time"
)

// BenchmarkWindowsCollection collects a busy Windows node (321 endpoints,
// 100 VFP ports, every vfpctrl call taking 200 ms, HNS queries 50 ms) with
// the real runner, then runs the very same calls one after another, and
// reports both wall times and their ratio (goal: at most 0.25).
// DIAG_FAKE_DELAY changes the 200 ms.
//
//	go test -run '^$' -bench WindowsCollection -benchtime 1x ./collectors
func BenchmarkWindowsCollection(b *testing.B) {
	delay := 200 * time.Millisecond
	if d, err := time.ParseDuration(os.Getenv("DIAG_FAKE_DELAY")); err == nil {
		delay = d
	}
	f := newFakeWindowsNode(b, 11, 100, 100, delay)
	var parallel time.Duration
	for b.Loop() {
		f.calls, f.hns = nil, nil
		start := time.Now()
		collectFake(b, f)
		parallel = time.Since(start)
	}
	b.StopTimer()
	calls, queries := f.calls, f.hns
	ctx := context.Background()
	start := time.Now()
	for _, q := range queries {
		q(ctx)
	}
	for _, c := range calls {
		f.Run(ctx, c[0], c[1:]...)
	}
	serial := time.Since(start)
	b.ReportMetric(float64(len(calls)+len(queries)), "calls")
	b.ReportMetric(parallel.Seconds(), "parallel-s")
	b.ReportMetric(serial.Seconds(), "serial-s")
	b.ReportMetric(parallel.Seconds()/serial.Seconds(), "ratio")
}
