package monitor

import (
	"context"
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"
	"k8s.io/client-go/rest"

	"github.com/wincni/diag/cluster/clustertest"
	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/gen"
)

// fakeClock is a time the test moves.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

func eventAPI(t *testing.T) (*clustertest.Server, *clustertest.EventCalls, EventAPI) {
	t.Helper()
	srv := clustertest.NewServer(t, nil)
	calls := srv.ServeEvents()
	api, err := NewEventAPI(&rest.Config{Host: srv.Srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	return srv, calls, api
}

func reasonsOf(evs []map[string]any, reason string) []map[string]any {
	var out []map[string]any
	for _, ev := range evs {
		if ev["reason"] == reason {
			out = append(out, ev)
		}
	}
	return out
}

func withRule(evs []map[string]any, rule string) []map[string]any {
	var out []map[string]any
	for _, ev := range evs {
		if msg, _ := ev["message"].(string); strings.HasPrefix(msg, rule+" ") {
			out = append(out, ev)
		}
	}
	return out
}

// Events on the Node through the API server: one when OVL-02 appears
// (Warning, summary and fix), one when it resolves (Normal), none while it
// persists, and the same transition again within the dedup window counts
// the first Event up instead of making another.
func TestEventsAppearResolveDedup(t *testing.T) {
	srv, calls, api := eventAPI(t)
	f := newFakeNode(t, gen.ClusterNode{Nodes: 5, LocalPods: 5})
	clock := &fakeClock{t: time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)}
	ev := &Eventer{Client: api, Node: "node-0000", Now: clock.now}
	mon := New(f.source(t), Options{Events: ev, Now: clock.now})

	round(t, mon)
	if got := srv.EventsOf("Node", "node-0000"); len(got) != 0 {
		t.Fatalf("healthy node: %d Events, want none: %v", len(got), got)
	}
	restore := f.dropRemoteSubnetRoute(t)
	clock.t = clock.t.Add(time.Minute)
	round(t, mon)
	appeared := withRule(reasonsOf(srv.EventsOf("Node", "node-0000"), ReasonAppeared), "OVL-02")
	if len(appeared) != 1 {
		t.Fatalf("OVL-02 appeared: %d Events, want 1: %v", len(appeared), srv.EventsOf("Node", "node-0000"))
	}
	e := appeared[0]
	msg := e["message"].(string)
	if e["type"] != "Warning" || !strings.Contains(msg, "OVL-02 fail: no RemoteSubnetRoute") || !strings.Contains(msg, "Fix: ") {
		t.Errorf("appeared Event: type %v message %q, want a Warning with the summary and the fix", e["type"], msg)
	}
	obj := e["involvedObject"].(map[string]any)
	if obj["uid"] != "node-0000" || e["source"].(map[string]any)["component"] != eventComponent || e["metadata"].(map[string]any)["namespace"] != "default" {
		t.Errorf("Event identity: involvedObject %v, source %v, metadata %v", obj, e["source"], e["metadata"])
	}

	clock.t = clock.t.Add(time.Minute)
	creates := calls.Create.Load()
	round(t, mon) // still broken: no Event
	if got := calls.Create.Load(); got != creates {
		t.Errorf("a persisting finding made %d Event(s)", got-creates)
	}

	restore()
	clock.t = clock.t.Add(time.Minute)
	round(t, mon)
	resolved := withRule(reasonsOf(srv.EventsOf("Node", "node-0000"), ReasonResolved), "OVL-02")
	if len(resolved) != 1 || resolved[0]["type"] != "Normal" || !strings.Contains(resolved[0]["message"].(string), "resolved") {
		t.Fatalf("OVL-02 resolved: %v, want one Normal Event saying resolved", resolved)
	}
	if got, _ := value(t, mon, "diag_monitor_events_total", "transition", "resolved", "result", "created"); got < 1 {
		t.Errorf("events_total{resolved,created} = %v", got)
	}

	f.dropRemoteSubnetRoute(t)
	clock.t = clock.t.Add(time.Minute)
	round(t, mon)
	appeared = withRule(reasonsOf(srv.EventsOf("Node", "node-0000"), ReasonAppeared), "OVL-02")
	if len(appeared) != 1 || appeared[0]["count"] != float64(2) {
		t.Fatalf("OVL-02 appeared again within the window: %d Events (count %v), want the first counted up to 2", len(appeared), appeared[0]["count"])
	}
	if calls.Patch.Load() == 0 {
		t.Error("no PATCH: the Event was not counted up on the server")
	}
	if got := mustValue(t, mon, "diag_monitor_events_total", "transition", "appeared", "result", "aggregated"); got < 1 {
		t.Errorf("events_total{appeared,aggregated} = %v", got)
	}

	// Past the window the same transition makes a new Event.
	restore()
	clock.t = clock.t.Add(time.Minute)
	round(t, mon)
	f.dropRemoteSubnetRoute(t)
	clock.t = clock.t.Add(time.Hour)
	round(t, mon)
	if appeared = withRule(reasonsOf(srv.EventsOf("Node", "node-0000"), ReasonAppeared), "OVL-02"); len(appeared) != 2 {
		t.Errorf("OVL-02 appeared after the dedup window: %d Events, want 2", len(appeared))
	}
}

// The rate limit drops what exceeds it and counts it.
func TestEventsRateLimited(t *testing.T) {
	srv, _, api := eventAPI(t)
	clock := &fakeClock{t: time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)}
	ev := &Eventer{Client: api, Node: "win-1", Now: clock.now, Limit: rate.NewLimiter(rate.Every(time.Minute), 2)}
	var results []EventResult
	for i, id := range []string{"OVL-01", "OVL-02", "OVL-03"} {
		res, err := ev.Emit(context.Background(), ReasonAppeared, finding.Finding{ID: id, Severity: finding.Fail, Summary: "s", Subjects: []string{"network:n" + string(rune('a'+i))}}, "")
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, res)
	}
	if results[0] != EventCreated || results[1] != EventCreated || results[2] != EventRateLimited {
		t.Fatalf("results %v, want created, created, rate_limited", results)
	}
	clock.t = clock.t.Add(time.Minute)
	if res, _ := ev.Emit(context.Background(), ReasonAppeared, finding.Finding{ID: "OVL-04", Severity: finding.Warn, Summary: "s"}, ""); res != EventCreated {
		t.Errorf("a minute later: %v, want created", res)
	}
	if n := len(srv.EventsOf("Node", "win-1")); n != 3 {
		t.Errorf("%d Events on the server, want 3", n)
	}
}

// An API server that refuses Events: the round goes on, the metrics and
// /readyz say so.
func TestEventsRefused(t *testing.T) {
	_, calls, api := eventAPI(t)
	calls.Refuse.Store(`events is forbidden: User "system:serviceaccount:diag:diag-monitor" cannot create resource "events"`)
	f := newFakeNode(t, gen.ClusterNode{Nodes: 5, LocalPods: 5})
	f.dropRemoteSubnetRoute(t)
	var log logLines
	mon := New(f.source(t), Options{Events: &Eventer{Client: api, Node: "node-0000"}, Logf: log.logf})
	round(t, mon)
	if got := mustValue(t, mon, "diag_monitor_events_total", "transition", "appeared", "result", "failed"); got < 1 {
		t.Errorf("events_total{appeared,failed} = %v", got)
	}
	if got := mustValue(t, mon, "diag_monitor_source_up", "source", SourceEvents); got != 0 {
		t.Errorf("source_up{events} = %v", got)
	}
	if code, body := get(t, mon, "/readyz"); code != 503 || !strings.Contains(body, "forbidden") {
		t.Errorf("/readyz = %d %q, want 503 with the API server's words", code, body)
	}
	if got := mustValue(t, mon, "diag_monitor_rounds_total", "result", "ok"); got != 1 {
		t.Errorf("rounds ok = %v: the round is good, only its Events failed", got)
	}
}

// A message over the API server's size keeps the bundle's name.
func TestEventMessageCut(t *testing.T) {
	f := finding.Finding{ID: "OVL-01", Severity: finding.Fail, Summary: strings.Repeat("é", 600), Remediation: strings.Repeat("fix ", 100)}
	msg := eventMessage(ReasonAppeared, f, "/records/diag-win-1-20261124T090000.000Z-OVL-01.zip")
	if len(msg) > maxEventMessage {
		t.Errorf("message of %d bytes", len(msg))
	}
	if !strings.HasPrefix(msg, "OVL-01 fail: é") || !strings.HasSuffix(msg, "…") {
		t.Errorf("message %q…%q", msg[:20], msg[len(msg)-20:])
	}
	if !strings.Contains(eventMessage(ReasonAppeared, finding.Finding{ID: "X", Summary: "s", Remediation: "r"}, "b.zip"), "s Bundle: b.zip Fix: r") {
		t.Error("the bundle is not named before the fix")
	}
}
