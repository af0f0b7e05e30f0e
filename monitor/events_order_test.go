package monitor

import (
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"
)

// When the rate limit lets only some of a round's Events through, the
// fails must go first, as the metrics' series cap keeps the worst first:
// ovl04-flannel-port opens FLN-01 info, OVL-04 fail and warn and OVL-09
// info at once, and one token is left.
func TestEventsUnderRateLimitSendFailsFirst(t *testing.T) {
	api := &flakyEvents{}
	src := &ReplaySource{Paths: []string{"../analyzers/testdata/scenarios/ovl04-flannel-port"}}
	mon := New(src, Options{Events: &Eventer{Client: api, Node: "win-1", Limit: rate.NewLimiter(rate.Every(time.Hour), 1)}})
	round(t, mon)
	api.mu.Lock()
	defer api.mu.Unlock()
	if len(api.created) != 1 || !strings.HasPrefix(api.created[0], ReasonAppeared+" OVL-04 fail") {
		t.Errorf("the one Event the limit allowed: %q, want OVL-04's fail", api.created)
	}
}

// What the rate limit held back goes in the next rounds, as tokens come:
// all four of ovl04-flannel-port's transitions are told, none twice.
func TestEventsHeldBackSentLater(t *testing.T) {
	api := &flakyEvents{}
	p := "../analyzers/testdata/scenarios/ovl04-flannel-port"
	src := &ReplaySource{Paths: []string{p, p, p, p, p}}
	clock := &fakeClock{t: time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)}
	mon := New(src, Options{Now: clock.now, Events: &Eventer{Client: api, Node: "win-1", Now: clock.now, Limit: rate.NewLimiter(rate.Every(time.Minute), 1)}})
	for range 5 {
		round(t, mon)
		clock.t = clock.t.Add(time.Minute)
	}
	api.mu.Lock()
	defer api.mu.Unlock()
	if len(api.created) != 4 {
		t.Errorf("%d Events over five rounds of one token each, want the 4 transitions: %q", len(api.created), api.created)
	}
	if got := mustValue(t, mon, "diag_monitor_events_owed"); got != 0 {
		t.Errorf("diag_monitor_events_owed = %v after all were sent", got)
	}
}
