package monitor

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wincni/diag/analyzers"
	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/formats"
)

// DefaultInterval is the time between rounds.
const DefaultInterval = 60 * time.Second

// DefaultMemoryLimit is the Go runtime's soft memory limit diag monitor
// sets unless GOMEMLIMIT says otherwise: a round's garbage (tens of MB on
// a large cluster's node) is then collected before the heap doubles, which
// keeps the pod's RSS within its budget at little cost in CPU.
const DefaultMemoryLimit = 48 << 20

// Options configure a Monitor.
type Options struct {
	Interval  time.Duration // between rounds; 0: DefaultInterval
	Jitter    float64       // each wait is Interval ± this fraction of it; 0.1 when 0, none when negative
	Selection analyzers.Selection
	// MaxFindingSeries caps the diag_monitor_finding series.
	MaxFindingSeries int
	Version          string
	Recorder         *Recorder // nil: no flight recorder
	Events           *Eventer  // nil: no Events
	// HNSService reads the HNS service's process each round; nil: not read
	// (the metrics then say not_windows).
	HNSService HNSServiceReader
	// Rounds stops the loop after this many rounds; 0: until ctx ends.
	Rounds int
	// Logf receives one line per thing worth saying (round failed, source
	// down or back, Event refused). Nil for none.
	Logf func(format string, args ...any)
	Now  func() time.Time
}

// Monitor runs rounds and publishes them.
type Monitor struct {
	o   Options
	src Source
	m   *metrics

	mu       sync.Mutex
	open     map[string]finding.Finding // the last round's open findings
	hns      HNSServiceStats
	hnsSeen  bool              // hns holds a look
	srcState map[string]string // the last round's problems, to log changes once

	evMu sync.Mutex
	owed owedEvents // transitions not yet delivered as Events

	lastTick  atomic.Int64 // unix nanoseconds of the loop's last sign of life
	lastGood  atomic.Int64 // of the end of the last good round
	lastRound atomic.Bool  // whether the last round was good
}

// New makes a monitor of src.
func New(src Source, o Options) *Monitor {
	if o.Interval <= 0 {
		o.Interval = DefaultInterval
	}
	if o.Jitter == 0 {
		o.Jitter = 0.1
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	mon := &Monitor{o: o, src: src, m: newMetrics(o.Version, o.MaxFindingSeries), open: map[string]finding.Finding{}, srcState: map[string]string{}}
	mon.lastTick.Store(o.Now().UnixNano())
	if o.HNSService == nil {
		mon.m.setHNS(HNSServiceStats{Unobservable: "not_windows"})
	}
	return mon
}

// Run runs rounds every interval until ctx ends (SIGTERM) or Rounds are
// done. A round in progress when ctx ends is abandoned whole: its state
// is not published and no Event is sent from it. After a replay's last
// bundle the monitor keeps serving the last state until ctx ends.
func (mon *Monitor) Run(ctx context.Context) error {
	for n := 0; mon.o.Rounds == 0 || n < mon.o.Rounds; n++ {
		err := mon.Round(ctx)
		if errors.Is(err, ErrReplayDone) {
			mon.o.Logf("replay: the last bundle has had its round; serving its state until stopped")
			mon.idle(ctx)
			return nil
		}
		if ctx.Err() != nil {
			return nil
		}
		if mon.o.Rounds > 0 && n+1 >= mon.o.Rounds {
			break
		}
		if !mon.sleep(ctx, mon.wait()) {
			return nil
		}
	}
	return nil
}

// idle keeps the loop alive (for /healthz) until ctx ends.
func (mon *Monitor) idle(ctx context.Context) {
	for mon.sleep(ctx, mon.o.Interval) {
	}
}

func (mon *Monitor) sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		mon.lastTick.Store(mon.o.Now().UnixNano())
		return true
	}
}

// wait is the interval with jitter, so that the nodes of a cluster do not
// all take their state (and list nothing, but write Events) at once.
func (mon *Monitor) wait() time.Duration {
	d := mon.o.Interval
	if mon.o.Jitter > 0 {
		d += time.Duration((rand.Float64()*2 - 1) * mon.o.Jitter * float64(d))
	}
	return max(d, time.Millisecond)
}

// Round takes the state once, runs the rules and publishes the result.
// It fails only with ErrReplayDone or when ctx ended; every other trouble
// is counted, logged and shown by the metrics.
func (mon *Monitor) Round(ctx context.Context) error {
	start := mon.o.Now()
	mon.lastTick.Store(start.UnixNano())
	mon.readHNSService()
	if mon.o.Recorder != nil {
		mon.source(SourceRecordDir, mon.o.Recorder.Check())
	}
	ok, done := false, false
	defer func() {
		end := mon.o.Now()
		mon.lastTick.Store(end.UnixNano())
		if done {
			return // no round: the replay has no more bundles
		}
		mon.lastRound.Store(ok)
		if ctx.Err() != nil {
			return // abandoned, not a failure of the node
		}
		mon.m.roundDuration.Observe(end.Sub(start).Seconds())
		if ok {
			mon.m.rounds.WithLabelValues("ok").Inc()
		} else {
			mon.m.rounds.WithLabelValues("failed").Inc()
		}
	}()

	t, err := mon.src.Take(ctx)
	if errors.Is(err, ErrReplayDone) {
		done = true
		return err
	}
	if ctx.Err() != nil {
		if t != nil {
			t.Close()
		}
		return ctx.Err()
	}
	if err != nil {
		mon.noState("no state taken", err)
		return nil
	}
	defer t.Close()
	for name, err := range t.Sources {
		mon.source(name, err)
	}
	s, err := formats.Load(t.Bundle)
	if err != nil {
		mon.noState(t.Label, err)
		return nil
	}
	res := analyzers.RunNode(s, mon.o.Selection)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	st := newRoundState(s, res)
	ran := map[string]bool{}
	for _, c := range res.Coverage {
		for _, id := range c.Ran {
			ran[id] = true
		}
	}

	mon.mu.Lock()
	before := mon.open
	mon.mu.Unlock()
	appeared, resolved := transitions(before, st.open)
	// A finding whose rule could not run this round (HNS did not answer,
	// the API server is away) is not resolved: it stays open until a
	// round that ran its rule does not find it.
	var gone []finding.Finding
	for _, f := range resolved {
		if ran[f.ID] {
			gone = append(gone, f)
			continue
		}
		st.open[findingKey(f)] = f
	}

	recorded := ""
	if mon.o.Recorder != nil {
		for _, f := range appeared {
			if f.Severity != finding.Fail {
				continue
			}
			path, err := mon.o.Recorder.Write(ctx, mon.src, t, mon.o.Now(), f.ID)
			if ctx.Err() != nil {
				return ctx.Err()
			}
			mon.source(SourceRecordDir, err)
			if path != "" {
				recorded = path
				mon.m.recordings.WithLabelValues("written").Inc()
				mon.o.Logf("recorded %s: %s appeared", path, f.ID)
			} else {
				mon.m.recordings.WithLabelValues("failed").Inc()
			}
			break // one bundle holds the moment, whatever number of fails appeared in it
		}
		if kept, err := mon.o.Recorder.Kept(); err == nil {
			mon.m.recordsKept.Set(float64(len(kept)))
		}
	}

	end := mon.o.Now()
	mon.m.setState(st, end)
	mon.mu.Lock()
	mon.open = st.open
	mon.mu.Unlock()
	mon.lastGood.Store(end.UnixNano())
	ok = true

	if mon.o.Events != nil {
		mon.emit(ctx, appeared, gone, recorded)
	}
	return nil
}

// emit owes the round's transitions as Events and sends what is owed,
// the worst first, until the rate limit or the API server stops it: what
// is left goes in a later round, so that an Event refused while the API
// server was away is not lost, nor the monitor left unready until some
// other finding changes. The events source is what the last attempt met.
func (mon *Monitor) emit(ctx context.Context, appeared, resolved []finding.Finding, recorded string) {
	mon.evMu.Lock()
	defer mon.evMu.Unlock()
	dropped := mon.owed.add(ReasonAppeared, appeared, recorded)
	dropped += mon.owed.add(ReasonResolved, resolved, "")
	if dropped > 0 {
		mon.m.eventsDropped.Add(float64(dropped))
	}
	defer func() { mon.m.eventsOwed.Set(float64(mon.owed.len())) }()
	for _, e := range mon.owed.worstFirst() {
		if ctx.Err() != nil {
			return
		}
		res, err := mon.o.Events.Emit(ctx, e.reason, e.f, e.recorded)
		mon.m.events.WithLabelValues(transitionLabel(e.reason), string(res)).Inc()
		switch res {
		case EventRateLimited:
			return // no token left this round
		case EventFailed:
			mon.source(SourceEvents, err)
			return // the API server is away or refuses: the rest wait too
		default:
			mon.owed.done(e)
			mon.source(SourceEvents, nil)
		}
	}
}

func transitionLabel(reason string) string {
	if reason == ReasonResolved {
		return "resolved"
	}
	return "appeared"
}

// noState says why a round has no state, once: a replay's through its
// source (which logs it), a live round's in the log.
func (mon *Monitor) noState(what string, err error) {
	if _, isReplay := mon.src.(*ReplaySource); isReplay {
		mon.source(SourceReplay, fmt.Errorf("%s: %w", what, err))
		return
	}
	mon.o.Logf("round: %s: %v", what, err)
}

// source records whether a source answered, and logs when that changes.
func (mon *Monitor) source(name string, err error) {
	mon.m.setSource(name, err)
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	mon.mu.Lock()
	prev, seen := mon.srcState[name]
	mon.srcState[name] = msg
	mon.mu.Unlock()
	switch {
	case msg != "" && (msg != prev || !seen):
		mon.o.Logf("%s: %s", name, msg)
	case msg == "" && seen && prev != "":
		mon.o.Logf("%s: answering again", name)
	}
}

func (mon *Monitor) readHNSService() {
	if mon.o.HNSService == nil {
		return
	}
	now := mon.o.HNSService()
	mon.mu.Lock()
	before, seen := mon.hns, mon.hnsSeen
	mon.hns, mon.hnsSeen = now, true
	mon.mu.Unlock()
	if seen && restarted(before, now) {
		mon.m.hnsRestarts.Inc()
		mon.o.Logf("hns: the service's process changed (PID %d → %d): HNS restarted", before.PID, now.PID)
	}
	mon.m.setHNS(now)
}
