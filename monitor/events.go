package monitor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/wincni/diag/finding"
)

// Event reasons, as kubectl get events shows them.
const (
	ReasonAppeared = "DiagFindingAppeared"
	ReasonResolved = "DiagFindingResolved"
)

// eventComponent is the Events' source and reporting controller.
const eventComponent = "diag-monitor"

// eventKeyAnnotation carries what an Event is about (the finding and its
// transition, as a digest) so that a monitor that restarts finds the
// Events it made and counts them up instead of making them again.
const eventKeyAnnotation = "monitor.diag.wincni.github.io/event-key"

// maxEventMessage keeps a message within what the API server stores.
const maxEventMessage = 1024

// Eventer reports findings as Events on the Node: one when a finding
// appears, one when it resolves. The same transition of the same finding
// within Dedup counts up the Event it already made (as the kubelet's
// recorder does) instead of making another, across restarts of the
// monitor too (the Events it made on the Node are listed once); every API
// call takes a token of Limit, and what finds none is dropped and
// counted.
type Eventer struct {
	Client    EventAPI
	Node      string
	Namespace string        // where Node Events go; "" is "default", as the kubelet's
	Dedup     time.Duration // 0: 10 minutes
	Limit     *rate.Limiter // nil: one every 10 s, bursts of 25
	Now       func() time.Time

	mu     sync.Mutex
	last   map[string]*sentEvent // by eventKey
	seq    int                   // tells apart the names of Events made at one instant
	listed bool                  // the Events made before a restart are in last
}

type sentEvent struct {
	name  string
	count int32
	first time.Time
	at    time.Time
}

// EventResult is what became of one transition, as the metrics count it.
type EventResult string

// The results of Emit.
const (
	EventCreated     EventResult = "created"
	EventAggregated  EventResult = "aggregated"
	EventRateLimited EventResult = "rate_limited"
	EventFailed      EventResult = "failed"
)

func (e *Eventer) now() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

func (e *Eventer) init() {
	if e.last == nil {
		e.last = map[string]*sentEvent{}
	}
	if e.Limit == nil {
		e.Limit = rate.NewLimiter(rate.Every(10*time.Second), 25)
	}
	if e.Dedup <= 0 {
		e.Dedup = 10 * time.Minute
	}
	if e.Namespace == "" {
		e.Namespace = metav1.NamespaceDefault
	}
}

// Emit reports one transition of f (ReasonAppeared or ReasonResolved);
// recorded names the flight-recorder bundle of the moment, if any.
func (e *Eventer) Emit(ctx context.Context, reason string, f finding.Finding, recorded string) (EventResult, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.init()
	now := e.now()
	for k, s := range e.last { // forget what is past the window: bounded memory
		if now.Sub(s.at) > e.Dedup {
			delete(e.last, k)
		}
	}
	if !e.Limit.AllowN(now, 1) {
		return EventRateLimited, nil
	}
	e.listMade(ctx, now)
	key := eventKey(f, reason)
	if s := e.last[key]; s != nil {
		// The message is renewed: it names this moment's bundle.
		patch, _ := json.Marshal(map[string]any{"count": s.count + 1, "lastTimestamp": metav1.NewTime(now), "message": eventMessage(reason, f, recorded)})
		if err := e.Client.Patch(ctx, e.Namespace, s.name, patch); err == nil {
			s.count++
			s.at = now
			return EventAggregated, nil
		}
		// The Event is gone (its TTL ended): make a new one.
		delete(e.last, key)
	}
	ev := e.event(reason, f, recorded, now)
	ev.Annotations = map[string]string{eventKeyAnnotation: key}
	made, err := e.Client.Create(ctx, ev)
	if err != nil {
		return EventFailed, fmt.Errorf("create Event on node %s: %w", e.Node, err)
	}
	e.last[key] = &sentEvent{name: made.Name, count: 1, first: now, at: now}
	return EventCreated, nil
}

// eventKey names one transition of one finding: a digest, short enough
// for an annotation whatever the finding's subject.
func eventKey(f finding.Finding, reason string) string {
	sum := sha256.Sum256([]byte(findingKey(f) + "\x00" + reason))
	return hex.EncodeToString(sum[:16])
}

// listMade reads, once, the Events this monitor's node has from diag
// monitor within the window, so that a restarted monitor counts them up.
// A listing that fails is tried again at the next transition, unless the
// server refuses it (RBAC without list): the Events are then made anew.
func (e *Eventer) listMade(ctx context.Context, now time.Time) {
	if e.listed {
		return
	}
	evs, err := e.Client.List(ctx, e.Namespace, e.Node)
	if err != nil {
		e.listed = apierrors.IsForbidden(err) || apierrors.IsMethodNotSupported(err) || apierrors.IsBadRequest(err)
		return
	}
	e.listed = true
	for _, ev := range evs {
		key := ev.Annotations[eventKeyAnnotation]
		at := ev.LastTimestamp.Time
		if key == "" || ev.Source.Component != eventComponent || now.Sub(at) > e.Dedup {
			continue
		}
		if s := e.last[key]; s != nil && !s.at.Before(at) {
			continue // an older Event of the same transition
		}
		e.last[key] = &sentEvent{name: ev.Name, count: max(ev.Count, 1), first: ev.FirstTimestamp.Time, at: at}
	}
}

// event builds the Event. Its involved object is the Node with the node's
// name as UID, as the kubelet does it, so that kubectl describe node
// lists it.
func (e *Eventer) event(reason string, f finding.Finding, recorded string, now time.Time) *corev1.Event {
	typ := corev1.EventTypeNormal
	if reason == ReasonAppeared && f.Severity >= finding.Warn {
		typ = corev1.EventTypeWarning
	}
	t := metav1.NewTime(now)
	e.seq++
	return &corev1.Event{
		ObjectMeta:          metav1.ObjectMeta{Name: fmt.Sprintf("%s.%x-%d", e.Node, now.UnixNano(), e.seq), Namespace: e.Namespace},
		InvolvedObject:      corev1.ObjectReference{Kind: "Node", Name: e.Node, UID: types.UID(e.Node), APIVersion: "v1"},
		Reason:              reason,
		Message:             eventMessage(reason, f, recorded),
		Type:                typ,
		Source:              corev1.EventSource{Component: eventComponent, Host: e.Node},
		FirstTimestamp:      t,
		LastTimestamp:       t,
		Count:               1,
		ReportingController: "wincni.github.io/" + eventComponent,
		ReportingInstance:   e.Node,
	}
}

// eventMessage: the rule, its severity, the summary and the fix, and the
// bundle of the moment; cut to what the API server keeps.
func eventMessage(reason string, f finding.Finding, recorded string) string {
	var b strings.Builder
	if reason == ReasonResolved {
		fmt.Fprintf(&b, "%s %s resolved: %s", f.ID, f.Severity, f.Summary)
	} else {
		fmt.Fprintf(&b, "%s %s: %s", f.ID, f.Severity, f.Summary)
	}
	// The bundle before the fix: a message cut at the end keeps it.
	if recorded != "" {
		fmt.Fprintf(&b, " Bundle: %s", recorded)
	}
	if reason == ReasonAppeared && f.Remediation != "" {
		fmt.Fprintf(&b, " Fix: %s", f.Remediation)
	}
	msg := b.String()
	if len(msg) > maxEventMessage {
		cut := maxEventMessage - len("…")
		for cut > 0 && msg[cut]&0xC0 == 0x80 {
			cut--
		}
		msg = msg[:cut] + "…"
	}
	return msg
}
