package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/wincni/diag/bundle"
)

// Options are a cluster collection's settings.
type Options struct {
	Namespace   string
	Image       string
	Parallel    int           // nodes collected at once
	NodeTimeout time.Duration // everything for one node: pod start, collection, stream
	Capture     time.Duration // diag collect --capture, 0 for none
	OutputDir   string
	MaxBundle   int64 // bytes one node's bundle may have
	// CollectArgs are more flags for diag collect in the pods (--only,
	// --skip, --max-log-bytes).
	CollectArgs []string
	// Progress gets one line per step of a node ("" node: the run's own).
	Progress func(node, line string)
	// DeleteWait bounds the wait, at the end, for the deleted pods to go
	// (their kubelets confirm); those still there are reported.
	DeleteWait time.Duration
	Now        func() time.Time
}

// Node statuses in cluster.json.
const (
	StatusOK        = "ok"
	StatusPartial   = "partial" // the bundle arrived; some of its collectors failed
	StatusFailed    = "failed"
	StatusTimeout   = "timeout"
	StatusSkipped   = "skipped"
	StatusCancelled = "cancelled"
)

// NodeResult is one node's line of cluster.json.
type NodeResult struct {
	Name     string  `json:"name"`
	OS       string  `json:"os,omitempty"`
	Status   string  `json:"status"`
	Reason   string  `json:"reason,omitempty"`
	Why      string  `json:"chosenBecause,omitempty"`
	Bundle   string  `json:"bundle,omitempty"`
	Bytes    int64   `json:"bytes,omitempty"`
	Seconds  float64 `json:"seconds"`
	Attempts int     `json:"attempts,omitempty"`
	Pod      string  `json:"pod,omitempty"`
	// PodLeft: the pod is still there at the end (its delete was refused,
	// or its kubelet never confirmed it); PodLeftReason says which.
	PodLeft       bool   `json:"podLeft,omitempty"`
	PodLeftReason string `json:"podLeftReason,omitempty"`
}

// Report is cluster.json: what was asked, and what each node gave.
type Report struct {
	Tool      string       `json:"tool"`
	Run       string       `json:"run"`
	Context   string       `json:"context"`
	Server    string       `json:"server"`
	Namespace string       `json:"namespace"`
	Image     string       `json:"image"`
	Started   time.Time    `json:"started"`
	Finished  time.Time    `json:"finished"`
	Stopped   string       `json:"stopped,omitempty"` // why the run ended early
	Nodes     []NodeResult `json:"nodes"`
}

// Bundles are the paths of the bundles that arrived, in dir.
func (r *Report) Bundles(dir string) []string {
	var out []string
	for _, n := range r.Nodes {
		if n.Bundle != "" && (n.Status == StatusOK || n.Status == StatusPartial) {
			out = append(out, filepath.Join(dir, n.Bundle))
		}
	}
	return out
}

// PodsLeft are the pods still there at the end, as namespace/name.
func (r *Report) PodsLeft() []string {
	var out []string
	for _, n := range r.Nodes {
		if n.PodLeft {
			out = append(out, r.Namespace+"/"+n.Pod)
		}
	}
	return out
}

// Stuck are the pods left Terminating: deleted, but their node's kubelet
// did not confirm (not a refused delete).
func (r *Report) Stuck() []string {
	var out []string
	for _, n := range r.Nodes {
		if n.PodLeft && strings.HasPrefix(n.PodLeftReason, reasonTerminating) {
			out = append(out, n.Pod)
		}
	}
	return out
}

// Count counts the nodes of a status.
func (r *Report) Count(status string) int {
	n := 0
	for _, nr := range r.Nodes {
		if nr.Status == status {
			n++
		}
	}
	return n
}

// NewRunID is a short random ID that names a run's pods.
func NewRunID() string {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Collect gathers a bundle from every chosen node into OutputDir, at most
// Parallel at a time, and writes OutputDir/cluster.json. One node that
// hangs or fails never holds up the others; when ctx ends (Ctrl-C) no new
// node starts, running ones stop, and what arrived is kept. Every pod of
// the run is deleted, also one whose create had no answer, and the run
// waits (DeleteWait) until they are gone; those that are not are named in
// the report. The report is returned even with an error.
func Collect(ctx context.Context, api *API, target *Target, choices []Choice, o Options) (*Report, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Parallel < 1 {
		o.Parallel = 1
	}
	if o.DeleteWait <= 0 {
		o.DeleteWait = 30 * time.Second
	}
	if o.Progress == nil {
		o.Progress = func(string, string) {}
	}
	rep := &Report{Tool: "diag", Run: NewRunID(), Namespace: o.Namespace, Image: o.Image, Started: o.Now().UTC(), Nodes: make([]NodeResult, len(choices))}
	if target != nil {
		rep.Context, rep.Server = target.Context, target.Server
	}
	r := &runner{api: api, o: o, spec: PodSpec{Namespace: o.Namespace, Image: o.Image, Run: rep.Run, Deadline: o.NodeTimeout + 2*time.Minute}, refused: map[string]error{}, strikes: map[string]map[string]int{}, refusedNodes: map[string]bool{}}
	// An answer every node would get alike stops the run at the first.
	runCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	r.stop = stop
	// One watch over the run's pods, from before the first is made until
	// the last is gone; it outlives Ctrl-C, so the cleanup sees too.
	wctx, wcancel := context.WithCancel(context.WithoutCancel(ctx))
	defer wcancel()
	watch, err := api.WatchPods(wctx, o.Namespace, LabelRun+"="+rep.Run)
	if err != nil {
		for i, c := range choices {
			rep.Nodes[i] = NodeResult{Name: c.Node.Name, OS: c.Node.OS, Why: c.Why, Status: StatusCancelled, Reason: "not started: " + oneLine(err.Error())}
			if c.Skip != "" {
				rep.Nodes[i].Status, rep.Nodes[i].Reason = StatusSkipped, c.Skip
			}
		}
		rep.Stopped = oneLine(err.Error())
		rep.Finished = o.Now().UTC()
		if werr := writeReport(filepath.Join(o.OutputDir, "cluster.json"), rep); werr != nil {
			return rep, werr
		}
		return rep, err
	}
	r.watch = watch

	var wg sync.WaitGroup
	sem := make(chan struct{}, o.Parallel)
	for i, c := range choices {
		rep.Nodes[i] = NodeResult{Name: c.Node.Name, OS: c.Node.OS, Why: c.Why}
		if c.Skip != "" {
			rep.Nodes[i].Status, rep.Nodes[i].Reason = StatusSkipped, c.Skip
			continue
		}
		select {
		case sem <- struct{}{}:
		case <-runCtx.Done():
		}
		if runCtx.Err() != nil {
			rep.Nodes[i].Status, rep.Nodes[i].Reason = StatusCancelled, oneLine("not started: the run stopped: "+context.Cause(runCtx).Error())
			continue
		}
		wg.Add(1)
		go func(i int, c Choice) {
			defer wg.Done()
			defer func() { <-sem }()
			res := r.node(runCtx, c)
			res.Why = c.Why
			rep.Nodes[i] = res
		}(i, c)
	}
	wg.Wait()
	r.sweep(ctx, rep)
	rep.Finished = o.Now().UTC()
	if runCtx.Err() != nil {
		rep.Stopped = oneLine(context.Cause(runCtx).Error())
	}
	if err := writeReport(filepath.Join(o.OutputDir, "cluster.json"), rep); err != nil {
		return rep, err
	}
	if cause := context.Cause(runCtx); cause != nil && StopsRun(cause) {
		return rep, cause
	}
	// Every node refused for its OS's pod spec: the refusal is the
	// answer. Else the nodes' results are (some refused, others without a
	// bundle for their own reasons).
	if err := r.everyNodeRefused(rep); err != nil {
		return rep, err
	}
	return rep, nil
}

type runner struct {
	api   *API
	o     Options
	spec  PodSpec
	watch *PodWatch
	// stop ends the run: an answer every node would get alike.
	stop context.CancelCauseFunc

	mu sync.Mutex
	// refused holds, by OS, the refusal of that OS's pod spec (admission,
	// validation) that two nodes met: that OS's nodes not yet started are
	// not tried. strikes counts each refusal's words by OS; first is the
	// first refusal of any pod spec; refusedNodes the nodes that ended on
	// one.
	refused      map[string]error
	strikes      map[string]map[string]int
	first        error
	refusedNodes map[string]bool
	// unsure: a create of this run had no answer (the run or the node's
	// time ended first), so its pod may appear after the fact.
	unsure time.Time
}

// halt records err where it reaches: the run, or the nodes of an OS
// once two of them met the same refusal (a policy may name one node: a
// refused create makes no pod, so trying a second costs one request), or
// only the node.
func (r *runner) halt(os, node string, err error) {
	switch RefusalScope(err) {
	case ScopeRun:
		r.stop(err)
	case ScopeOS:
		msg := strings.ReplaceAll(err.Error(), PodName(node, r.spec.Run), "<pod>")
		msg = strings.ReplaceAll(msg, node, "<node>")
		r.mu.Lock()
		defer r.mu.Unlock()
		r.refusedNodes[node] = true
		if r.first == nil {
			r.first = err
		}
		if r.strikes[os] == nil {
			r.strikes[os] = map[string]int{}
		}
		r.strikes[os][msg]++
		if r.strikes[os][msg] >= 2 && r.refused[os] == nil {
			r.refused[os] = err
		}
	}
}

// mark records a node not tried because its OS's pod spec was refused.
func (r *runner) mark(node string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refusedNodes[node] = true
}

func (r *runner) refusedFor(os string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.refused[os]
}

// everyNodeRefused is the first refusal of a pod spec when every node
// tried ended on such a refusal (its own, or its OS's that kept it from
// being tried): every OS was refused, and that is the run's answer. A
// node that ended otherwise (its pod never started, Ctrl-C) makes it nil.
func (r *runner) everyNodeRefused(rep *Report) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range rep.Nodes {
		if n.Status != StatusSkipped && !r.refusedNodes[n.Name] {
			return nil
		}
	}
	return r.first
}

// node collects from one node within its timeout.
func (r *runner) node(ctx context.Context, c Choice) (res NodeResult) {
	start := r.o.Now()
	res = NodeResult{Name: c.Node.Name, OS: c.Node.OS, Pod: PodName(c.Node.Name, r.spec.Run)}
	say := func(format string, args ...any) { r.o.Progress(c.Node.Name, fmt.Sprintf(format, args...)) }
	nctx, cancel := context.WithTimeoutCause(ctx, r.o.NodeTimeout, errNodeTimeout)
	defer cancel()
	defer func() { res.Seconds = r.o.Now().Sub(start).Seconds() }()

	if err := r.refusedFor(c.Node.OS); err != nil {
		r.mark(c.Node.Name)
		res.Pod = ""
		res.Status, res.Reason = StatusFailed, oneLine("not tried: two other "+c.Node.OS+" nodes' collector pods were refused alike: "+err.Error())
		return res
	}
	manifest, err := r.spec.Manifest(c.Node)
	if err != nil {
		return failed(res, err)
	}
	say("creating pod %s", res.Pod)
	cerr := r.api.CreatePod(nctx, r.o.Namespace, manifest)
	// A create retried after a lost answer finds the pod made: the name
	// carries this run's ID, so it is this run's pod.
	if IsAlreadyExists(cerr) {
		cerr = nil
	}
	// The API's errors name the request ("create pods: ..."): no more
	// words before them.
	if cerr != nil && Definite(cerr) {
		r.halt(c.Node.OS, c.Node.Name, cerr)
		res.Pod = ""
		return r.ended(nctx, res, cerr)
	}
	// Made, or perhaps made (no answer): it is deleted whatever happens
	// next, even after Ctrl-C; the sweep at the end waits until it is gone
	// and finds it if it appears only later.
	defer func() {
		dctx, dcancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer dcancel()
		if err := r.api.DeletePod(dctx, r.o.Namespace, res.Pod); err != nil {
			res.PodLeft, res.PodLeftReason = true, deleteFailed(err)
			say("could not delete pod %s: %v", res.Pod, err)
		}
	}()
	if cerr != nil {
		r.mu.Lock()
		r.unsure = time.Now()
		r.mu.Unlock()
		return r.ended(nctx, res, cerr)
	}
	if err := r.waitRunning(nctx, res.Pod, say); err != nil {
		r.halt(c.Node.OS, c.Node.Name, err)
		return r.ended(nctx, res, err)
	}
	for res.Attempts = 1; ; res.Attempts++ {
		say("collecting (attempt %d)", res.Attempts)
		f := r.fetch(nctx, c.Node, res.Pod, res.Attempts)
		if f.err == nil {
			res.Bundle, res.Bytes = bundleName(c.Node.Name), f.n
			res.Status = StatusOK
			if f.partial != "" {
				res.Status, res.Reason = StatusPartial, f.partial
			}
			say("%s: %d bytes in %.0fs", res.Status, f.n, r.o.Now().Sub(start).Seconds())
			return res
		}
		r.halt(c.Node.OS, c.Node.Name, f.err)
		// A stream cut or damaged on the way is worth one more try while
		// the node's time lasts; a collector that ran and said no, or
		// answered with something else than a stream, is the node's answer.
		var se *StreamError
		if errors.As(f.err, &se) && (se.Kind == "cut" || se.Kind == "corrupt") && !f.exited && res.Attempts < 2 && nctx.Err() == nil {
			say("%v; trying again", f.err)
			continue
		}
		return r.ended(nctx, res, f.err)
	}
}

// reasonTerminating starts the reason of a pod left Terminating;
// reasonDeleteFailed that of one whose delete did not go through.
const (
	reasonTerminating  = "Terminating"
	reasonDeleteFailed = "delete "
	reasonUnknown      = "unknown"
)

// deleteFailed words a delete that did not go through: refused by the
// server (RBAC: someone with the right removes it), or not answered (the
// API server unreachable: nothing was refused).
func deleteFailed(err error) string {
	var ie *InterruptedError
	if IsUnreachable(err) || errors.As(err, &ie) {
		return oneLine(reasonDeleteFailed + "not answered: the API server did not answer (" + err.Error() + "); the pod may still be there")
	}
	return oneLine(reasonDeleteFailed + "refused: " + err.Error())
}

// Unanswered are the pods whose delete the API server never answered.
func (r *Report) Unanswered() []string {
	var out []string
	for _, n := range r.Nodes {
		if n.PodLeft && strings.HasPrefix(n.PodLeftReason, reasonDeleteFailed+"not answered") {
			out = append(out, n.Pod)
		}
	}
	return out
}

// Unknown are the pods whose delete was sent but could not be followed
// (neither watch nor list answered): they may be gone or not.
func (r *Report) Unknown() []string {
	var out []string
	for _, n := range r.Nodes {
		if n.PodLeft && strings.HasPrefix(n.PodLeftReason, reasonUnknown) {
			out = append(out, n.Pod)
		}
	}
	return out
}

// sweep deletes every pod of the run still there (one whose create had
// no answer may appear only now) and waits, at most DeleteWait, until
// they are gone. A pod whose delete was refused, or that stays
// Terminating because its node's kubelet does not confirm, is marked in
// its node's result.
func (r *runner) sweep(ctx context.Context, rep *Report) {
	byPod := map[string]*NodeResult{}
	for i := range rep.Nodes {
		n := &rep.Nodes[i]
		if n.Status != StatusSkipped {
			byPod[PodName(n.Name, rep.Run)] = n
		}
	}
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.o.DeleteWait)
	defer cancel()
	if ctx.Err() == nil {
		// A Ctrl-C now ends the wait (the deletes are sent already); after
		// an earlier one the wait is the cleanup it asked for.
		stop := context.AfterFunc(ctx, cancel)
		defer stop()
	}
	if pods := len(r.watch.Pods()); pods > 0 {
		r.o.Progress("", fmt.Sprintf("waiting up to %s for %d pod(s) to go (their kubelets confirm the delete)", r.o.DeleteWait, pods))
		if r.o.OutputDir != "" {
			// Written now too: a second Ctrl-C during the wait ends diag,
			// and the report of what was collected is already there.
			_ = writeReport(filepath.Join(r.o.OutputDir, "cluster.json"), rep)
		}
	}
	r.mu.Lock()
	settle := r.unsure.Add(2 * time.Second) // a create given up may land this late
	r.mu.Unlock()
	asked := map[string]bool{}
	var unknown error // the pods could be followed neither by watch nor by list
	for {
		pods := r.watch.Pods()
		for name, st := range pods {
			if asked[name] || (st.Deleting && byPod[name] != nil && !byPod[name].PodLeft) {
				continue
			}
			asked[name] = true
			if err := r.api.DeletePod(dctx, r.o.Namespace, name); err != nil {
				if n := byPod[name]; n != nil {
					n.Pod, n.PodLeft, n.PodLeftReason = name, true, deleteFailed(err)
				}
				r.o.Progress("", fmt.Sprintf("could not delete pod %s: %v", name, err))
			}
		}
		left := 0
		for name := range pods {
			if n := byPod[name]; n == nil || !n.PodLeft || !strings.HasPrefix(n.PodLeftReason, reasonDeleteFailed) {
				left++
			}
		}
		if left == 0 && time.Now().After(settle) {
			break
		}
		wait := time.Until(settle)
		if left > 0 || wait <= 0 {
			wait = time.Second
		}
		// The watch may have failed for good mid-run (watch permission
		// taken away): the pods are then listed once a second, never
		// waited for in a spin, and a list that fails too leaves their
		// state unknown, said so rather than guessed.
		wctx, wcancel := context.WithTimeout(dctx, wait)
		err := r.watch.WaitOrPoll(wctx, func(now map[string]PodState) (bool, error) { return len(now) != len(pods), nil })
		ended := wctx.Err() != nil
		wcancel()
		if dctx.Err() != nil {
			break
		}
		if err != nil && !ended {
			unknown = err
			break
		}
	}
	for name, st := range r.watch.Pods() {
		n := byPod[name]
		if n == nil || (n.PodLeft && strings.HasPrefix(n.PodLeftReason, reasonDeleteFailed)) {
			continue
		}
		n.Pod, n.PodLeft = name, true
		if unknown != nil {
			n.PodLeftReason = oneLine(fmt.Sprintf("%s: its delete was sent, but diag could not follow it (%v); diag collect --cluster --cleanup --namespace %s removes it if it is still there", reasonUnknown, unknown, r.o.Namespace))
			continue
		}
		if st.Deleting {
			n.PodLeftReason = fmt.Sprintf("%s: deleted, but node %s's kubelet did not confirm within %s (it may be down); diag collect --cluster --cleanup --force removes it", reasonTerminating, orNode(st.Node, n.Name), r.o.DeleteWait)
		} else {
			n.PodLeftReason = fmt.Sprintf("still there %s after its delete was sent", r.o.DeleteWait)
		}
	}
}

func orNode(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

var errNodeTimeout = errors.New("node timeout")

// ended turns an error into the node's result: a refusal of this node's
// own requests is its failure; else timeout when its deadline passed,
// cancelled when the run was stopped (with the run's reason, not the
// interrupted request's), failed otherwise.
func (r *runner) ended(nctx context.Context, res NodeResult, err error) NodeResult {
	switch cause := context.Cause(nctx); {
	case RefusalScope(err) != ScopeNode:
		return failed(res, err)
	case errors.Is(cause, errNodeTimeout):
		res.Status, res.Reason = StatusTimeout, oneLine(fmt.Sprintf("no bundle within --node-timeout %s: %v", r.o.NodeTimeout, err))
	case cause != nil:
		res.Status, res.Reason = StatusCancelled, oneLine("the run stopped: "+cause.Error())
	default:
		return failed(res, err)
	}
	return res
}

func failed(res NodeResult, err error) NodeResult {
	res.Status, res.Reason = StatusFailed, oneLine(err.Error())
	return res
}

// oneLine keeps a reason on one line: a container's termination message
// may hold a whole stack.
func oneLine(s string) string {
	s = strings.TrimSpace(strings.ReplaceAll(s, "\r\n", "\n"))
	return strings.ReplaceAll(s, "\n", " | ")
}

// podStartFailures are waiting reasons that no wait will mend.
var podStartFailures = map[string]bool{
	"ErrImagePull": true, "ImagePullBackOff": true, "InvalidImageName": true, "ErrImageNeverPull": true,
	"CreateContainerConfigError": true, "CreateContainerError": true, "RunContainerError": true,
}

// waitRunning waits, on the run's watch, until the pod runs; it fails at
// once on a pod that ended, went, or cannot start (its image, its
// container).
func (r *runner) waitRunning(ctx context.Context, pod string, say func(string, ...any)) error {
	last := ""
	seen := false
	err := r.watch.Wait(ctx, func(pods map[string]PodState) (bool, error) {
		st, ok := pods[pod]
		switch {
		case !ok && seen:
			return false, errors.New("the collector pod was deleted before it ran")
		case !ok:
			return false, nil // made, not yet seen by the watch
		case st.Deleting:
			return false, errors.New("the collector pod is being deleted (by someone else) before it ran")
		case st.Phase == "Running":
			return true, nil
		case st.Phase == "Failed" || st.Phase == "Succeeded":
			return false, fmt.Errorf("the collector pod ended (%s): %s %s", st.Phase, st.Reason, st.Message)
		case podStartFailures[st.Reason]:
			return false, fmt.Errorf("the collector pod cannot start: %s: %s", st.Reason, strings.TrimSpace(st.Message))
		}
		seen = true
		if now := strings.TrimSpace(st.Phase + " " + st.Reason); now != last {
			last = now
			say("pod %s", now)
		}
		return false, nil
	})
	if err != nil && ctx.Err() != nil && !StopsRun(err) {
		return notStarted(last)
	}
	return err
}

func notStarted(last string) error {
	if last == "" {
		return errors.New("the pod did not start")
	}
	return fmt.Errorf("the pod did not start (last seen %s)", last)
}

// collectTimeout is the time diag collect in the pod gets: what is left of
// the node's (the pod's start took its share) less the capture and a
// margin for the transfer, at least a second.
func (r *runner) collectTimeout(ctx context.Context) time.Duration {
	left := r.o.NodeTimeout
	if dl, ok := ctx.Deadline(); ok {
		left = time.Until(dl)
	}
	left -= r.o.Capture
	t := left - min(30*time.Second, left/4)
	return max(t.Truncate(time.Second), time.Second)
}

// statusGrace is how long a whole bundle waits for the collector's exit
// status before it is kept without one.
var statusGrace = 20 * time.Second

// fetched is one attempt's outcome.
type fetched struct {
	n       int64
	partial string // why the bundle is partial, "" when it is whole
	exited  bool   // the collector ran and exited non-zero
	err     error
}

// fetch runs diag collect --stream in the pod and keeps the bundle that
// arrives whole and verified.
func (r *runner) fetch(ctx context.Context, node Node, pod string, attempt int) fetched {
	cmd := append(append([]string{}, Binary(node.OS)...), "collect", "--stream", "--timeout", r.collectTimeout(ctx).String())
	// The first attempt's collection may still run in the pod (a closed
	// exec does not end it), holding the node's one packet capture
	// session (pktmon): a retry goes without.
	noCapture := r.o.Capture > 0 && attempt > 1
	if r.o.Capture > 0 && !noCapture {
		cmd = append(cmd, "--capture", r.o.Capture.String())
	}
	cmd = append(cmd, r.o.CollectArgs...)
	final := filepath.Join(r.o.OutputDir, bundleName(node.Name))
	part, err := os.CreateTemp(r.o.OutputDir, "."+bundleName(node.Name)+".*.part")
	if err != nil {
		return fetched{err: err}
	}
	defer os.Remove(part.Name())
	defer part.Close()

	// The exec has its own context: a bad stream ends the transfer at
	// once, and a whole one does not wait for ever for its exit status.
	ectx, ecancel := context.WithCancel(ctx)
	defer ecancel()
	pr, pw := io.Pipe()
	type streamed struct {
		n   int64
		err error
	}
	got := make(chan streamed, 1)
	go func() {
		n, err := ReadStream(pr, part, r.o.MaxBundle)
		if err != nil {
			pr.CloseWithError(err)
		} else {
			go io.Copy(io.Discard, pr) // what may follow the end frame
		}
		got <- streamed{n, err}
	}()
	stderr := &tailWriter{max: 4 << 10}
	execDone := make(chan error, 1)
	go func() {
		err := r.api.Exec(ectx, r.o.Namespace, pod, containerName, cmd, pw, stderr)
		pw.CloseWithError(io.EOF)
		execDone <- err
	}()
	res := <-got
	var execErr error
	noStatus := ""
	if res.err != nil {
		ecancel()
		execErr = <-execDone
		// The exec ended because we stopped it: its "canceled" is ours.
		if ctx.Err() == nil && errors.Is(execErr, context.Canceled) {
			execErr = nil
		}
	} else {
		select {
		case execErr = <-execDone:
		case <-time.After(statusGrace):
			ecancel()
			execErr = <-execDone
			if _, ok := ExitCode(execErr); !ok {
				execErr, noStatus = nil, fmt.Sprintf("not the collector's exit status within %s", statusGrace)
			}
		}
		// The node's time or the run ended while the status was awaited:
		// the bundle is whole and checked, so it is kept.
		if _, ok := ExitCode(execErr); !ok && execErr != nil && ctx.Err() != nil {
			execErr, noStatus = nil, "the node's time or the run ended before the collector's exit status"
		}
	}
	code, exited := ExitCode(execErr)
	out := fetched{n: res.n, exited: exited && code != 3}
	if exited && code == 3 {
		out.partial, execErr = "some collectors failed or timed out (manifest.json in the bundle says which)", nil
	}
	var se *StreamError
	switch {
	case RefusalScope(execErr) != ScopeNode:
		out.err = execErr
	case res.err != nil && execErr != nil && ctx.Err() == nil && (!errors.As(res.err, &se) || se.Received == 0):
		// Nothing arrived: the exec's own failure is the story.
		out.err = fmt.Errorf("%w (collector said: %s; %w)", execErr, stderr.last(), res.err)
	case res.err != nil && execErr != nil && ctx.Err() == nil:
		out.err = fmt.Errorf("%w; exec: %w (collector said: %s)", res.err, execErr, stderr.last())
	case res.err != nil:
		out.err = res.err
	case execErr != nil:
		// The whole bundle arrived and is checked below against its own
		// checksums: it is kept, and the failure after it is said.
		noStatus = oneLine(fmt.Sprintf("diag collect then failed: %v (%s)", execErr, stderr.last()))
	}
	if out.err != nil {
		return out
	}
	if noStatus != "" {
		out.partial = "the bundle arrived whole and verified, but " + noStatus
	}
	if noCapture {
		out.partial = strings.TrimPrefix(out.partial+"; retried without --capture (the first attempt may still hold the capture session)", "; ")
	}
	if err := part.Close(); err != nil {
		out.err = err
		return out
	}
	if err := verifyBundle(part.Name()); err != nil {
		out.err = err
		return out
	}
	if err := os.Rename(part.Name(), final); err != nil {
		out.err = err
	}
	return out
}

// verifyBundle checks the arrived bundle against its own manifest, as
// diag bundle verify does.
func verifyBundle(path string) error {
	b, err := bundle.Open(path, bundle.DefaultLimits)
	if err != nil {
		return fmt.Errorf("the bundle that arrived does not open: %w", err)
	}
	defer b.Close()
	problems, err := bundle.Verify(b)
	if err != nil {
		return fmt.Errorf("verify the bundle: %w", err)
	}
	if len(problems) > 0 {
		return fmt.Errorf("the bundle does not match its manifest: %s (and %d more)", problems[0], len(problems)-1)
	}
	return nil
}

// bundleName is DIR/<node>.zip's base name.
func bundleName(node string) string { return bundle.FileNamePart(node) + ".zip" }

func writeReport(path string, rep *Report) error {
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return os.Rename(tmp, path)
}

// tailWriter keeps the end of what a collector writes to stderr.
type tailWriter struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (t *tailWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = t.buf[len(t.buf)-t.max:]
	}
	return len(p), nil
}

// last is its last non-empty line.
func (t *tailWriter) last() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.buf)), "\n")
	s := strings.TrimSpace(lines[len(lines)-1])
	if s == "" {
		return "nothing on stderr"
	}
	return s
}

// CleanupReport is what diag collect --cluster --cleanup did, by pod name.
// Each pod found is in one of Deleted, Forced, Terminating, Refused,
// Unsure or Unknown.
type CleanupReport struct {
	Found       []string
	Deleted     []string // gone
	Forced      []string // gone, removed without their kubelet's confirmation (--force)
	Terminating []string // deleted, still there at the end: their kubelet did not confirm
	// Refused: the API server refused to delete them (RBAC, an admission
	// webhook): someone with the right removes them.
	Refused map[string]error
	// Unsure: the delete's outcome is unknown (no answer, a server
	// failure, Ctrl-C before it was sent) and the pod is still there.
	Unsure map[string]error
	// Unknown: deleted, but neither the watch nor a list could tell
	// whether they went (UnknownWhy).
	Unknown    []string
	UnknownWhy error
	// Waited is how long the wait for the kubelets' confirmation lasted
	// at most; Interrupted what ended it early (Ctrl-C), nil if nothing.
	Waited      time.Duration
	Interrupted error
}

// Cleanup deletes the pods earlier runs left (a killed diag): every pod in
// the namespace with the managed-by label, and waits, at most wait, until
// they are gone. With force, those that stay Terminating (a node whose
// kubelet does not answer) are removed without its confirmation. The pods
// are followed by a watch, or by a list once a second when the watch is
// refused. Ctrl-C (ctx) ends the wait: nothing more is sent, and the pods
// still there are said as they are. The error is the first refusal, when
// any delete was refused.
func Cleanup(ctx context.Context, api *API, namespace string, force bool, wait time.Duration) (*CleanupReport, error) {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	watch, err := api.WatchPods(wctx, namespace, LabelManagedBy+"="+ManagedBy)
	if err != nil {
		return nil, err
	}
	rep := &CleanupReport{Refused: map[string]error{}, Unsure: map[string]error{}, Waited: wait}
	var first error
	pods := watch.Pods()
	for name := range pods {
		rep.Found = append(rep.Found, name)
	}
	sort.Strings(rep.Found)
	forced := map[string]bool{}
	del := func(name string, force bool) {
		d := api.DeletePod
		if force {
			d = api.ForceDeletePod
		}
		err := d(ctx, namespace, name)
		switch {
		case err == nil:
			delete(rep.Unsure, name)
			forced[name] = forced[name] || force
		case Definite(err):
			rep.Refused[name] = err
			if first == nil {
				first = err
			}
		default:
			// No answer, a server failure or Ctrl-C: not a refusal.
			rep.Unsure[name] = err
		}
	}
	for _, name := range rep.Found {
		// Already Terminating: an earlier delete was not confirmed.
		del(name, force && pods[name].Deleting)
	}
	pending := func(now map[string]PodState) []string {
		var out []string
		for _, name := range rep.Found {
			if _, there := now[name]; there && rep.Refused[name] == nil {
				out = append(out, name)
			}
		}
		return out
	}
	gone := func(now map[string]PodState) (bool, error) { return len(pending(now)) == 0, nil }
	// waitGone waits at most d; a list that fails after a refused watch
	// leaves the pods' state unknown.
	waitGone := func(d time.Duration) {
		tctx, tcancel := context.WithTimeout(ctx, d)
		defer tcancel()
		if err := watch.WaitOrPoll(tctx, gone); err != nil && tctx.Err() == nil {
			rep.UnknownWhy = err
		}
	}
	waitGone(wait)
	if force && ctx.Err() == nil && rep.UnknownWhy == nil {
		for _, name := range pending(watch.Pods()) {
			if !forced[name] {
				del(name, true)
			}
		}
		waitGone(10 * time.Second)
	}
	if ctx.Err() != nil {
		rep.Interrupted = context.Cause(ctx)
	}
	now := watch.Pods()
	for _, name := range rep.Found {
		st, there := now[name]
		switch {
		case rep.Refused[name] != nil:
		case !there && forced[name]:
			rep.Forced = append(rep.Forced, name)
		case !there:
			rep.Deleted = append(rep.Deleted, name)
			delete(rep.Unsure, name)
		case rep.UnknownWhy != nil:
			rep.Unknown = append(rep.Unknown, name)
			delete(rep.Unsure, name)
		case rep.Unsure[name] != nil && !st.Deleting:
			// Still there, its delete not known to have been done.
		default:
			delete(rep.Unsure, name)
			rep.Terminating = append(rep.Terminating, name)
		}
	}
	return rep, first
}
