package monitor

import (
	"testing"
	"time"

	"github.com/wincni/diag/gen"
)

// A monitor that restarts while a finding is open (the pod rescheduled,
// OOM-killed, upgraded) sees the finding appear again at its first round:
// within the dedup window it counts up the Event the previous monitor
// made, found through the API server, instead of making a second one;
// past the window, or for another node's Events, it makes its own.
func TestEventsDedupAcrossRestart(t *testing.T) {
	srv, calls, api := eventAPI(t)
	f := newFakeNode(t, gen.ClusterNode{Nodes: 5, LocalPods: 5})
	clock := &fakeClock{t: time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)}
	f.dropRemoteSubnetRoute(t)

	first := New(f.source(t), Options{Events: &Eventer{Client: api, Node: "node-0000", Now: clock.now}, Now: clock.now})
	round(t, first)
	appeared := withRule(reasonsOf(srv.EventsOf("Node", "node-0000"), ReasonAppeared), "OVL-02")
	if len(appeared) != 1 {
		t.Fatalf("OVL-02 appeared: %d Events, want 1", len(appeared))
	}
	// Another node's monitor's Event of the same finding is not this one's.
	other := New(f.source(t), Options{Events: &Eventer{Client: api, Node: "node-0001", Now: clock.now}, Now: clock.now})
	round(t, other)

	clock.t = clock.t.Add(3 * time.Minute)
	creates := calls.Create.Load()
	restarted := New(f.source(t), Options{Events: &Eventer{Client: api, Node: "node-0000", Now: clock.now}, Now: clock.now})
	round(t, restarted)
	if got := calls.Create.Load() - creates; got != 0 {
		t.Errorf("the restarted monitor made %d Event(s) for what was open before", got)
	}
	appeared = withRule(reasonsOf(srv.EventsOf("Node", "node-0000"), ReasonAppeared), "OVL-02")
	if len(appeared) != 1 || appeared[0]["count"] != float64(2) {
		t.Fatalf("after the restart: %d OVL-02 Events (count %v), want the first counted up to 2", len(appeared), appeared[0]["count"])
	}
	if got := mustValue(t, restarted, "diag_monitor_events_total", "transition", "appeared", "result", "aggregated"); got < 1 {
		t.Errorf("events_total{appeared,aggregated} = %v after the restart", got)
	}

	clock.t = clock.t.Add(time.Hour)
	again := New(f.source(t), Options{Events: &Eventer{Client: api, Node: "node-0000", Now: clock.now}, Now: clock.now})
	round(t, again)
	if appeared = withRule(reasonsOf(srv.EventsOf("Node", "node-0000"), ReasonAppeared), "OVL-02"); len(appeared) != 2 {
		t.Errorf("a restart past the dedup window: %d OVL-02 Events, want 2 (a new one)", len(appeared))
	}
}
