package monitor

import (
	"sort"

	"github.com/wincni/diag/finding"
)

// maxOwedEvents bounds the transitions kept for delivery: a node with a
// thousand broken endpoints, the API server away, must not grow the
// monitor without bound. Past it the mildest go first.
const maxOwedEvents = 500

// owedEvent is a transition of a finding not yet delivered as an Event:
// the API server refused it, could not be reached, or the rate limit held
// it back.
type owedEvent struct {
	reason   string // ReasonAppeared or ReasonResolved
	f        finding.Finding
	recorded string // the flight-recorder bundle of the moment, if any
	seq      int    // the order transitions were seen in
}

// owedEvents are the transitions owed, at most one per finding: a
// transition that undoes the one owed (a finding resolved before its
// appearance was told, or back before its resolution was) cancels it, as
// the Events already on the Node still say what is true.
type owedEvents struct {
	byKey map[string]*owedEvent
	seq   int
}

// add owes a round's transitions; it returns how many owed ones were
// dropped to stay within maxOwedEvents.
func (o *owedEvents) add(reason string, fs []finding.Finding, recorded string) int {
	if o.byKey == nil {
		o.byKey = map[string]*owedEvent{}
	}
	for _, f := range fs {
		k := findingKey(f)
		if prev := o.byKey[k]; prev != nil && prev.reason != reason {
			delete(o.byKey, k)
			continue
		}
		rec := ""
		if reason == ReasonAppeared && f.Severity == finding.Fail {
			rec = recorded
		}
		o.seq++
		o.byKey[k] = &owedEvent{reason: reason, f: f, recorded: rec, seq: o.seq}
	}
	dropped := 0
	if extra := len(o.byKey) - maxOwedEvents; extra > 0 {
		all := o.worstFirst()
		for _, e := range all[len(all)-extra:] {
			delete(o.byKey, findingKey(e.f))
			dropped++
		}
	}
	return dropped
}

// worstFirst is the owed transitions in the order they are sent: the
// worst severity first (as the diag_monitor_finding series cap keeps
// them), then the oldest.
func (o *owedEvents) worstFirst() []*owedEvent {
	out := make([]*owedEvent, 0, len(o.byKey))
	for _, e := range o.byKey {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.f.Severity != b.f.Severity {
			return a.f.Severity > b.f.Severity
		}
		return a.seq < b.seq
	})
	return out
}

// done forgets a delivered transition.
func (o *owedEvents) done(e *owedEvent) {
	if cur := o.byKey[findingKey(e.f)]; cur == e {
		delete(o.byKey, findingKey(e.f))
	}
}

func (o *owedEvents) len() int { return len(o.byKey) }
