package collectors

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/wincni/diag/bundle"
	"github.com/wincni/diag/manifest"
)

// Event reports a collector's progress to whoever shows it.
type Event struct {
	ID       string
	Done     bool   // false: it started
	Status   string // when Done: a bundle.Status* value
	Err      string
	Duration time.Duration
	Files    int
}

// RunOptions says how to run a set of collectors.
type RunOptions struct {
	Parallel int           // collectors at once; default 4
	Deadline time.Duration // the whole run; 0 means none
	// Progress receives events as they happen (from several goroutines,
	// one at a time). Nil for none.
	Progress func(Event)
	// Logf receives every line that goes into diag.log. Nil for none.
	Logf func(string)
}

// grace is how long the runner waits for a collector to return after its
// context ended before it records a timeout and moves on without it.
const grace = 2 * time.Second

// Run runs collectors into w and records each one's outcome in the
// manifest, then writes diag.log. It never fails because a collector did:
// a hang, an error or a panic is recorded and the others go on. It returns
// whether every collector ended ok, skipped or unsupported (a complete
// bundle); ctx ending (Ctrl-C) stops the run and leaves what was done.
func Run(ctx context.Context, w *bundle.Writer, e *Env, cs []Collector, opts RunOptions) (complete bool) {
	if opts.Parallel <= 0 {
		opts.Parallel = 4
	}
	runCtx := ctx
	if opts.Deadline > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, opts.Deadline)
		defer cancel()
	}
	var logMu sync.Mutex
	var log strings.Builder
	logf := func(format string, args ...any) {
		line := fmt.Sprintf(format, args...)
		logMu.Lock()
		fmt.Fprintf(&log, "%s %s\n", time.Now().UTC().Format("15:04:05.000"), line)
		if opts.Logf != nil {
			opts.Logf(line)
		}
		logMu.Unlock()
	}
	var progressMu sync.Mutex
	progress := func(ev Event) {
		if opts.Progress != nil {
			progressMu.Lock()
			opts.Progress(ev)
			progressMu.Unlock()
		}
	}

	results := make([]manifest.CollectorResult, len(cs))
	slots := make(chan struct{}, opts.Parallel)
	var wg sync.WaitGroup
	for i, c := range cs {
		select {
		case slots <- struct{}{}:
		case <-runCtx.Done():
		}
		if runCtx.Err() != nil {
			results[i] = manifest.CollectorResult{ID: c.ID, Status: manifest.StatusSkipped, Error: "not started: " + stopReason(ctx, runCtx, opts.Deadline)}
			logf("%s: skipped, %s", c.ID, results[i].Error)
			continue
		}
		wg.Add(1)
		go func(i int, c Collector) {
			defer wg.Done()
			defer func() { <-slots }()
			progress(Event{ID: c.ID})
			results[i] = runOne(ctx, runCtx, w, e, c, opts.Deadline, logf)
			r := results[i]
			progress(Event{ID: c.ID, Done: true, Status: r.Status, Err: r.Error, Duration: time.Duration(r.DurationMS) * time.Millisecond, Files: len(r.Files)})
		}(i, c)
	}
	wg.Wait()

	complete = true
	for _, r := range results {
		w.AddCollector(r)
		switch r.Status {
		case manifest.StatusOK, manifest.StatusSkipped, manifest.StatusUnsupported:
			if strings.HasPrefix(r.Error, "not started") {
				complete = false
			}
		default:
			complete = false
		}
	}
	logMu.Lock()
	text := log.String()
	logMu.Unlock()
	if err := w.WriteFile("diag.log", []byte(text)); err != nil {
		complete = false
	}
	return complete
}

// runOne runs a collector with its own timeout inside the run's context,
// recovering a panic and abandoning a collector that does not return.
func runOne(parent, runCtx context.Context, w *bundle.Writer, e *Env, c Collector, deadline time.Duration, logf func(string, ...any)) manifest.CollectorResult {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultCollectorTimeout
	}
	ctx, cancel := context.WithTimeout(runCtx, timeout)
	defer cancel()
	out := newOutput(c.ID, w, logf)
	start := time.Now()
	res := manifest.CollectorResult{ID: c.ID, Started: start.UTC().Format(time.RFC3339Nano)}
	logf("%s: started", c.ID)

	done := make(chan error, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				logf("%s: panic: %v\n%s", c.ID, p, debug.Stack())
				done <- fmt.Errorf("panic: %v", p)
			}
		}()
		done <- c.Run(ctx, e, out)
	}()
	var err error
	abandoned := false
	select {
	case err = <-done:
	case <-ctx.Done():
		// Give it a moment to notice and return what it has.
		t := time.NewTimer(grace)
		select {
		case err = <-done:
			t.Stop()
		case <-t.C:
			abandoned = true
		}
	}
	out.seal()
	res.DurationMS = time.Since(start).Milliseconds()
	res.Files = out.Files()
	problems := out.takeProblems()

	var skip skipError
	switch {
	case ctx.Err() != nil && (abandoned || err != nil || len(problems) > 0):
		res.Status = manifest.StatusTimeout
		res.Error = timeoutReason(parent, runCtx, timeout, deadline)
		if parent.Err() != nil {
			res.Status = manifest.StatusFailed
		}
	case errors.As(err, &skip):
		res.Status, res.Error = manifest.StatusSkipped, skip.reason
	case errors.Is(err, ErrUnsupported):
		res.Status, res.Error = manifest.StatusUnsupported, err.Error()
	case err != nil && len(res.Files) == 0:
		res.Status, res.Error = manifest.StatusFailed, err.Error()
	case err != nil:
		res.Status, res.Error = manifest.StatusPartial, err.Error()
	case len(problems) > 0:
		res.Status = manifest.StatusPartial
		res.Error = errors.Join(problems...).Error()
	default:
		res.Status = manifest.StatusOK
	}
	if res.Error != "" {
		logf("%s: %s after %dms: %s", c.ID, res.Status, res.DurationMS, res.Error)
	} else {
		logf("%s: %s after %dms, %d files", c.ID, res.Status, res.DurationMS, len(res.Files))
	}
	return res
}

// ErrUnsupported marks a collector that cannot run on this OS or node.
var ErrUnsupported = errors.New("not supported here")

func timeoutReason(parent, runCtx context.Context, own, deadline time.Duration) string {
	switch {
	case parent.Err() != nil:
		return "interrupted"
	case runCtx.Err() != nil:
		return fmt.Sprintf("the run's deadline (--timeout %s) was reached", deadline)
	default:
		return fmt.Sprintf("no answer within its %s timeout", own)
	}
}

func stopReason(parent, runCtx context.Context, deadline time.Duration) string {
	if parent.Err() != nil {
		return "interrupted"
	}
	return fmt.Sprintf("the run's deadline (--timeout %s) was reached", deadline)
}
