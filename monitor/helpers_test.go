package monitor

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
)

// value is a metric's value with exactly these labels, and whether the
// registry has it.
func value(t testing.TB, mon *Monitor, name string, labels ...string) (float64, bool) {
	t.Helper()
	want := map[string]string{}
	for i := 0; i+1 < len(labels); i += 2 {
		want[labels[i]] = labels[i+1]
	}
	mfs, err := mon.m.reg.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	next:
		for _, m := range mf.GetMetric() {
			if len(m.GetLabel()) != len(want) {
				continue
			}
			for _, l := range m.GetLabel() {
				if want[l.GetName()] != l.GetValue() {
					continue next
				}
			}
			switch {
			case m.Gauge != nil:
				return m.GetGauge().GetValue(), true
			case m.Counter != nil:
				return m.GetCounter().GetValue(), true
			case m.Histogram != nil:
				return float64(m.GetHistogram().GetSampleCount()), true
			}
		}
	}
	return 0, false
}

func mustValue(t testing.TB, mon *Monitor, name string, labels ...string) float64 {
	t.Helper()
	v, ok := value(t, mon, name, labels...)
	if !ok {
		t.Fatalf("no metric %s%v", name, labels)
	}
	return v
}

// findingSeries lists the diag_monitor_finding series as "rule severity".
func findingSeries(t testing.TB, mon *Monitor) []string {
	t.Helper()
	mfs, err := mon.m.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, mf := range mfs {
		if mf.GetName() != "diag_monitor_finding" {
			continue
		}
		for _, m := range mf.GetMetric() {
			l := map[string]string{}
			for _, p := range m.GetLabel() {
				l[p.GetName()] = p.GetValue()
			}
			out = append(out, l["rule"]+" "+l["severity"])
		}
	}
	sort.Strings(out)
	return out
}

func hasSeries(series []string, s string) bool {
	for _, x := range series {
		if x == s {
			return true
		}
	}
	return false
}

// get fetches a path of the monitor's handler.
func get(t testing.TB, mon *Monitor, path string) (int, string) {
	t.Helper()
	srv := httptest.NewServer(mon.Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// logLines collects what the monitor logs.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) logf(format string, args ...any) {
	l.mu.Lock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
	l.mu.Unlock()
}

func (l *logLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

func round(t testing.TB, mon *Monitor) {
	t.Helper()
	if err := mon.Round(context.Background()); err != nil {
		t.Fatalf("round: %v", err)
	}
}
