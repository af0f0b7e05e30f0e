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
	// PollInterval is how often a starting pod is looked at.
	PollInterval time.Duration
	Now          func() time.Time
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
	// PodLeft: the pod could not be deleted (diag collect --cluster
	// --cleanup removes it; its activeDeadlineSeconds ends it anyway).
	PodLeft bool `json:"podLeft,omitempty"`
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

// PodsLeft are the pods that could not be deleted.
func (r *Report) PodsLeft() []string {
	var out []string
	for _, n := range r.Nodes {
		if n.PodLeft {
			out = append(out, r.Namespace+"/"+n.Pod)
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
// node starts, running ones stop, and what arrived is kept. Every pod it
// created is deleted. The report is returned even with an error.
func Collect(ctx context.Context, api *API, target *Target, choices []Choice, o Options) (*Report, error) {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.PollInterval <= 0 {
		o.PollInterval = time.Second
	}
	if o.Parallel < 1 {
		o.Parallel = 1
	}
	if o.Progress == nil {
		o.Progress = func(string, string) {}
	}
	rep := &Report{Tool: "diag", Run: NewRunID(), Namespace: o.Namespace, Image: o.Image, Started: o.Now().UTC(), Nodes: make([]NodeResult, len(choices))}
	if target != nil {
		rep.Context, rep.Server = target.Context, target.Server
	}
	r := &runner{api: api, o: o, spec: PodSpec{Namespace: o.Namespace, Image: o.Image, Run: rep.Run, Deadline: o.NodeTimeout + 2*time.Minute}}
	// A refusal is the same for every node: the first stops the run.
	runCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	r.stop = stop

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
			rep.Nodes[i].Status, rep.Nodes[i].Reason = StatusCancelled, "not started: "+context.Cause(runCtx).Error()
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
	rep.Finished = o.Now().UTC()
	if runCtx.Err() != nil {
		rep.Stopped = context.Cause(runCtx).Error()
	}
	if err := writeReport(filepath.Join(o.OutputDir, "cluster.json"), rep); err != nil {
		return rep, err
	}
	if cause := context.Cause(runCtx); cause != nil && StopsRun(cause) {
		return rep, cause
	}
	return rep, nil
}

type runner struct {
	api  *API
	o    Options
	spec PodSpec
	// stop ends the run: an answer every node would get alike.
	stop context.CancelCauseFunc
}

// halt stops the run when err is one that every node would meet.
func (r *runner) halt(err error) {
	if StopsRun(err) {
		r.stop(err)
	}
}

// node collects from one node within its timeout.
func (r *runner) node(ctx context.Context, c Choice) (res NodeResult) {
	start := r.o.Now()
	res = NodeResult{Name: c.Node.Name, OS: c.Node.OS, Pod: PodName(c.Node.Name, r.spec.Run)}
	say := func(format string, args ...any) { r.o.Progress(c.Node.Name, fmt.Sprintf(format, args...)) }
	nctx, cancel := context.WithTimeoutCause(ctx, r.o.NodeTimeout, errNodeTimeout)
	defer cancel()
	defer func() { res.Seconds = r.o.Now().Sub(start).Seconds() }()

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
	if cerr == nil || !Definite(cerr) {
		// Made, or perhaps made (an answer lost, then the retries failed):
		// it goes whatever happens next, even after Ctrl-C.
		defer func() {
			dctx, dcancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
			defer dcancel()
			if err := r.api.DeletePod(dctx, r.o.Namespace, res.Pod); err != nil {
				res.PodLeft = true
				say("could not delete pod %s: %v", res.Pod, err)
			}
		}()
	}
	if cerr != nil {
		r.halt(cerr)
		return r.ended(nctx, res, fmt.Errorf("create the collector pod: %w", cerr))
	}
	if err := r.waitRunning(nctx, res.Pod, say); err != nil {
		r.halt(err)
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
		r.halt(f.err)
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

var errNodeTimeout = errors.New("node timeout")

// ended turns an error into the node's result: timeout when its deadline
// passed, cancelled when the run was stopped, failed otherwise.
func (r *runner) ended(nctx context.Context, res NodeResult, err error) NodeResult {
	switch cause := context.Cause(nctx); {
	case StopsRun(err):
		return failed(res, err)
	case errors.Is(cause, errNodeTimeout):
		res.Status, res.Reason = StatusTimeout, oneLine(fmt.Sprintf("no bundle within --node-timeout %s: %v", r.o.NodeTimeout, err))
	case cause != nil:
		res.Status, res.Reason = StatusCancelled, oneLine(fmt.Sprintf("%v (%v)", cause, err))
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

// waitRunning polls the pod until it runs; it fails at once on a pod that
// ended or cannot start (its image, its container).
func (r *runner) waitRunning(ctx context.Context, pod string, say func(string, ...any)) error {
	last := ""
	for {
		st, err := r.api.Pod(ctx, r.o.Namespace, pod)
		switch {
		case err != nil:
			if ctx.Err() != nil {
				return notStarted(last)
			}
			return fmt.Errorf("read the collector pod: %w", err)
		case st.Phase == "Running":
			return nil
		case st.Phase == "Failed" || st.Phase == "Succeeded":
			return fmt.Errorf("the collector pod ended (%s): %s %s", st.Phase, st.Reason, st.Message)
		case podStartFailures[st.Reason]:
			return fmt.Errorf("the collector pod cannot start: %s: %s", st.Reason, strings.TrimSpace(st.Message))
		}
		if now := strings.TrimSpace(st.Phase + " " + st.Reason); now != last {
			last = now
			say("pod %s", now)
		}
		select {
		case <-ctx.Done():
			return notStarted(last)
		case <-time.After(r.o.PollInterval):
		}
	}
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
	case StopsRun(execErr):
		out.err = execErr
	case res.err != nil && execErr != nil && ctx.Err() == nil && (!errors.As(res.err, &se) || se.Received == 0):
		// Nothing arrived: the exec's own failure is the story.
		out.err = fmt.Errorf("%w (collector said: %s; %w)", execErr, stderr.last(), res.err)
	case res.err != nil && execErr != nil && ctx.Err() == nil:
		out.err = fmt.Errorf("%w; exec: %w (collector said: %s)", res.err, execErr, stderr.last())
	case res.err != nil:
		out.err = res.err
	case execErr != nil:
		out.err = fmt.Errorf("the bundle arrived but diag collect failed: %w (%s)", execErr, stderr.last())
	}
	if out.err != nil {
		return out
	}
	if noStatus != "" {
		out.partial = "the bundle arrived whole, but " + noStatus
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

// Cleanup deletes the pods earlier runs left (a killed diag): every pod in
// the namespace with the run label. It returns their names.
func Cleanup(ctx context.Context, api *API, namespace string) ([]string, error) {
	names, err := api.PodNames(ctx, namespace, LabelManagedBy+"="+ManagedBy)
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, n := range names {
		if err := api.DeletePod(ctx, namespace, n); err != nil {
			errs = append(errs, fmt.Errorf("delete %s: %w", n, err))
		}
	}
	return names, errors.Join(errs...)
}
