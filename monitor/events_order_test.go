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
