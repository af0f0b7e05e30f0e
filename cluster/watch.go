package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// podObject is what a collection reads of one of its pods.
type podObject struct {
	Metadata struct {
		Name              string            `json:"name"`
		ResourceVersion   string            `json:"resourceVersion"`
		Labels            map[string]string `json:"labels"`
		DeletionTimestamp *time.Time        `json:"deletionTimestamp"`
	} `json:"metadata"`
	Spec struct {
		NodeName string `json:"nodeName"`
	} `json:"spec"`
	Status struct {
		Phase      string `json:"phase"`
		Reason     string `json:"reason"`
		Message    string `json:"message"`
		Conditions []struct {
			Type, Status, Reason, Message string
		} `json:"conditions"`
		ContainerStatuses []struct {
			State struct {
				Waiting *struct {
					Reason, Message string
				} `json:"waiting"`
				Terminated *struct {
					Reason, Message string
					ExitCode        int `json:"exitCode"`
				} `json:"terminated"`
			} `json:"state"`
		} `json:"containerStatuses"`
	} `json:"status"`
}

// state is the pod's phase and why it is not running.
func (p *podObject) state() PodState {
	st := PodState{Phase: p.Status.Phase, Reason: p.Status.Reason, Message: p.Status.Message, Node: p.Spec.NodeName, Deleting: p.Metadata.DeletionTimestamp != nil}
	for _, c := range p.Status.Conditions {
		if c.Type == "PodScheduled" && c.Status == "False" && st.Reason == "" {
			st.Reason, st.Message = c.Reason, c.Message
		}
	}
	for _, cs := range p.Status.ContainerStatuses {
		if w := cs.State.Waiting; w != nil && w.Reason != "" {
			st.Reason, st.Message = w.Reason, w.Message
		}
		if t := cs.State.Terminated; t != nil {
			st.Reason, st.Message = t.Reason, fmt.Sprintf("exit code %d %s", t.ExitCode, t.Message)
		}
	}
	return st
}

// PodWatch follows the pods of a label selector with one list and one
// watch (a poll per pod would cost the API server a request per pod per
// second): who waits for a pod to run or to go asks it, not the server.
type PodWatch struct {
	api       *API
	namespace string
	selector  string

	mu      sync.Mutex
	pods    map[string]PodState // the pods there now, by name
	synced  bool                // the first list arrived
	err     error               // the watch ended for good (RBAC, credentials)
	changed chan struct{}       // closed at each change, then replaced
}

// WatchPods lists the pods of namespace that match selector and follows
// them until ctx ends. It returns once the first list arrived, with its
// error when the server refused it.
func (a *API) WatchPods(ctx context.Context, namespace, selector string) (*PodWatch, error) {
	w := &PodWatch{api: a, namespace: namespace, selector: selector, pods: map[string]PodState{}, changed: make(chan struct{})}
	rv, err := w.list(ctx)
	if err != nil {
		return nil, err
	}
	go w.follow(ctx, rv)
	return w, nil
}

func (w *PodWatch) path(extra url.Values) string {
	q := url.Values{}
	q.Set("labelSelector", w.selector)
	for k, v := range extra {
		q[k] = v
	}
	return "/api/v1/namespaces/" + url.PathEscape(w.namespace) + "/pods?" + q.Encode()
}

// list replaces what is known with a fresh list and returns its version.
func (w *PodWatch) list(ctx context.Context) (string, error) {
	var l struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
		Items []podObject `json:"items"`
	}
	if err := w.api.do(ctx, http.MethodGet, w.path(nil), "list", "pods", nil, &l); err != nil {
		return "", err
	}
	pods := make(map[string]PodState, len(l.Items))
	for i := range l.Items {
		pods[l.Items[i].Metadata.Name] = l.Items[i].state()
	}
	w.mu.Lock()
	w.pods, w.synced = pods, true
	w.notify()
	w.mu.Unlock()
	return l.Metadata.ResourceVersion, nil
}

// notify wakes every waiter; mu is held.
func (w *PodWatch) notify() {
	close(w.changed)
	w.changed = make(chan struct{})
}

// follow watches from rv, lists again when the server says the version is
// too old, and ends for good only on an answer every retry would get.
func (w *PodWatch) follow(ctx context.Context, rv string) {
	backoff := 250 * time.Millisecond
	for ctx.Err() == nil {
		next, err := w.watch(ctx, rv)
		if ctx.Err() != nil {
			return
		}
		if err == nil {
			rv, backoff = next, 250*time.Millisecond
			continue
		}
		if StopsRun(err) {
			w.fail(err)
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 5*time.Second)
		if rv, err = w.list(ctx); err != nil && StopsRun(err) {
			w.fail(err)
			return
		}
	}
}

func (w *PodWatch) fail(err error) {
	w.mu.Lock()
	w.err = err
	w.notify()
	w.mu.Unlock()
}

// errResync: the watch's version is gone; list again.
var errResync = errors.New("watch: list again")

// watch follows one watch request to its end and returns the version to
// go on from.
func (w *PodWatch) watch(ctx context.Context, rv string) (string, error) {
	q := url.Values{}
	q.Set("watch", "true")
	q.Set("resourceVersion", rv)
	q.Set("allowWatchBookmarks", "true")
	q.Set("timeoutSeconds", "300")
	body, err := w.api.open(ctx, w.path(q), "watch", "pods")
	if err != nil {
		return rv, err
	}
	defer body.Close()
	dec := json.NewDecoder(io.LimitReader(body, maxAnswer))
	for {
		var ev struct {
			Type   string          `json:"type"`
			Object json.RawMessage `json:"object"`
		}
		if err := dec.Decode(&ev); err != nil {
			if errors.Is(err, io.EOF) {
				return rv, nil // the server's timeout: watch again from rv
			}
			return rv, fmt.Errorf("watch pods: %w", err)
		}
		var p podObject
		if ev.Type == "ERROR" {
			return rv, errResync // most often 410 Gone: the version was compacted
		}
		if err := json.Unmarshal(ev.Object, &p); err != nil {
			return rv, fmt.Errorf("watch pods: %w", err)
		}
		if p.Metadata.ResourceVersion != "" {
			rv = p.Metadata.ResourceVersion
		}
		w.mu.Lock()
		switch ev.Type {
		case "ADDED", "MODIFIED":
			w.pods[p.Metadata.Name] = p.state()
		case "DELETED":
			delete(w.pods, p.Metadata.Name)
		}
		w.notify()
		w.mu.Unlock()
	}
}

// Wait calls cond with the pods known, at once and after each change,
// until it says done, ctx ends or the watch fails for good. When ctx ends
// the error is an InterruptedError: it names what ended ctx (another
// node's refusal, Ctrl-C) without being it.
func (w *PodWatch) Wait(ctx context.Context, cond func(pods map[string]PodState) (bool, error)) error {
	for {
		w.mu.Lock()
		if w.err != nil {
			err := w.err
			w.mu.Unlock()
			return err
		}
		done, err := cond(w.pods)
		ch := w.changed
		w.mu.Unlock()
		if done || err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return interrupted(ctx, "wait for the pods", nil)
		case <-ch:
		}
	}
}

// pollEvery is how often the pods are listed once their watch has failed
// for good.
var pollEvery = time.Second

// WaitOrPoll is Wait for those who only wait for pods to go (the
// deletes are sent): once the watch has failed for good (watch refused,
// or taken away mid-run) it lists the pods every pollEvery instead, until
// cond is met or ctx ends. Its error, other than ctx's end, is the list's:
// what is there is then unknown.
func (w *PodWatch) WaitOrPoll(ctx context.Context, cond func(pods map[string]PodState) (bool, error)) error {
	err := w.Wait(ctx, cond)
	if err == nil || ctx.Err() != nil || w.Failed() == nil {
		return err
	}
	for {
		if _, err := w.list(ctx); err != nil {
			if ctx.Err() != nil {
				return interrupted(ctx, "wait for the pods", nil)
			}
			return err
		}
		w.mu.Lock()
		done, err := cond(w.pods)
		w.mu.Unlock()
		if done || err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return interrupted(ctx, "wait for the pods", nil)
		case <-time.After(pollEvery):
		}
	}
}

// Failed is why the watch ended for good, nil while it follows.
func (w *PodWatch) Failed() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Pods is a copy of the pods known now.
func (w *PodWatch) Pods() map[string]PodState {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make(map[string]PodState, len(w.pods))
	for k, v := range w.pods {
		out[k] = v
	}
	return out
}
