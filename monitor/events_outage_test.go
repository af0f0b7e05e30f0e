package monitor

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// flakyEvents refuses the first fails Creates (the API server away for a
// moment), then answers.
type flakyEvents struct {
	mu      sync.Mutex
	fails   int
	created []string
}

func (f *flakyEvents) Create(_ context.Context, ev *corev1.Event) (*corev1.Event, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fails > 0 {
		f.fails--
		return nil, errors.New(`Post "https://10.0.0.1:443/api/v1/namespaces/default/events": dial tcp 10.0.0.1:443: connect: connection refused`)
	}
	f.created = append(f.created, ev.Reason+" "+ev.Message)
	return ev, nil
}

func (f *flakyEvents) Patch(context.Context, string, string, []byte) error { return nil }

func (f *flakyEvents) List(context.Context, string, string) ([]corev1.Event, error) { return nil, nil }

// An Event refused once while the API server was away for a moment: the
// finding stays open, the API server answers again, and nothing else
// changes on the node. The monitor must not stay unready, with
// diag_monitor_source_up{events} 0, until some other finding happens to
// appear or resolve, and the open fail must get its Event.
func TestEventRefusedOnceIsNotDownForever(t *testing.T) {
	api := &flakyEvents{fails: 1}
	seed := "../testdata/bundles/seed-broken"
	src := &ReplaySource{Paths: []string{seed, seed, seed, seed}}
	mon := New(src, Options{Events: &Eventer{Client: api, Node: "win-1"}})
	for range 4 {
		round(t, mon)
	}
	if got := mustValue(t, mon, "diag_monitor_source_up", "source", SourceEvents); got != 1 {
		t.Errorf("source_up{events} = %v three rounds after the API server answers again, want 1", got)
	}
	for _, p := range mon.NotReady() {
		if strings.HasPrefix(p, SourceEvents+":") {
			t.Errorf("/readyz still says %q three rounds after the API server answers again", p)
		}
	}
	api.mu.Lock()
	defer api.mu.Unlock()
	sent := false
	for _, c := range api.created {
		sent = sent || strings.HasPrefix(c, ReasonAppeared+" OVL-01 fail")
	}
	if !sent {
		t.Errorf("the open OVL-01 fail never got its Event (created: %q)", api.created)
	}
}
