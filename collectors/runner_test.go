package collectors

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wincni/diag/bundle"
	"github.com/wincni/diag/manifest"
)

// openBundle closes w and opens and verifies the zip it wrote.
func closeAndVerify(t *testing.T, w *bundle.Writer, path string) *bundle.Bundle {
	t.Helper()
	if _, err := w.Close(); err != nil {
		t.Fatalf("close bundle: %v", err)
	}
	b, err := bundle.Open(path, bundle.DefaultLimits)
	if err != nil {
		t.Fatalf("open bundle: %v", err)
	}
	// Closed before the temporary directory is removed: Windows refuses
	// to delete a file still open (a sharing violation).
	t.Cleanup(func() { b.Close() })
	problems, err := bundle.Verify(b)
	if err != nil || len(problems) > 0 {
		t.Fatalf("verify: %v %v", problems, err)
	}
	return b
}

func newTestWriter(t *testing.T) (*bundle.Writer, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "b.zip")
	w, err := bundle.Create(path, manifest.Manifest{Node: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return w, path
}

func result(t *testing.T, b *bundle.Bundle, id string) manifest.CollectorResult {
	t.Helper()
	for _, r := range b.Manifest.Collectors {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("no manifest entry for %s in %+v", id, b.Manifest.Collectors)
	return manifest.CollectorResult{}
}

// A collector that hangs (and ignores its context), one that fails and
// one that panics are recorded as such; the others' files are there and
// the bundle is complete and verifiable.
func TestRunRecordsHangFailPanic(t *testing.T) {
	w, path := newTestWriter(t)
	release := make(chan struct{})
	defer close(release)
	lateWrite := make(chan error, 1)
	cs := []Collector{
		{ID: "good", Run: func(ctx context.Context, e *Env, out *Output) error {
			return out.WriteText("host/os.json", []byte(`{"Hostname":"win-1"}`))
		}},
		{ID: "hang", Timeout: 50 * time.Millisecond, Run: func(ctx context.Context, e *Env, out *Output) error {
			<-release // ignores ctx, as a stuck DLL call would
			lateWrite <- out.WriteText("late.txt", []byte("too late"))
			return nil
		}},
		{ID: "fail", Run: func(ctx context.Context, e *Env, out *Output) error {
			return errors.New("vfpctrl: exit status 1: access denied")
		}},
		{ID: "panic", Run: func(ctx context.Context, e *Env, out *Output) error {
			var m map[string]int
			//lint:ignore SA5000 a deliberate nil map write: a real runtime panic
			m["x"]++
			return nil
		}},
		{ID: "partial", Run: func(ctx context.Context, e *Env, out *Output) error {
			out.Problem(errors.New("port 7: vfpctrl timed out"))
			return out.WriteText("vfp/ports.txt", []byte("ports"))
		}},
		{ID: "skip", Run: func(ctx context.Context, e *Env, out *Output) error {
			return Skip("no kubeconfig")
		}},
	}
	var events []Event
	complete := Run(context.Background(), w, &Env{}, cs, RunOptions{Parallel: 2, Progress: func(ev Event) { events = append(events, ev) }})
	if complete {
		t.Error("a run with failures reported complete")
	}
	b := closeAndVerify(t, w, path)
	want := map[string]string{"good": "ok", "hang": "timeout", "fail": "failed", "panic": "failed", "partial": "partial", "skip": "skipped"}
	for id, status := range want {
		r := result(t, b, id)
		if r.Status != status {
			t.Errorf("%s: status %s (%s), want %s", id, r.Status, r.Error, status)
		}
	}
	if r := result(t, b, "panic"); !strings.Contains(r.Error, "panic") {
		t.Errorf("panic error %q", r.Error)
	}
	if r := result(t, b, "good"); len(r.Files) != 1 || r.Files[0] != "host/os.json" {
		t.Errorf("good files %v", r.Files)
	}
	if !b.Has("host/os.json") || !b.Has("vfp/ports.txt") || !b.Has("diag.log") {
		t.Errorf("files missing: %v", b.Names())
	}
	log, _ := b.ReadFile("diag.log")
	for _, s := range []string{"hang: timeout", "panic: panic", "fail: failed", "skip: skipped"} {
		if !strings.Contains(string(log), s) {
			t.Errorf("diag.log lacks %q:\n%s", s, log)
		}
	}
	done := 0
	for _, ev := range events {
		if ev.Done {
			done++
		}
	}
	if done != len(cs) {
		t.Errorf("%d done events, want %d", done, len(cs))
	}
	// The hung collector wakes up after the bundle is closed: it cannot write.
	release <- struct{}{}
	if err := <-lateWrite; !errors.Is(err, ErrSealed) {
		t.Errorf("late write: %v, want ErrSealed", err)
	}
}

// The run's deadline stops what runs and skips what has not started.
func TestRunDeadline(t *testing.T) {
	w, path := newTestWriter(t)
	slow := func(ctx context.Context, e *Env, out *Output) error {
		<-ctx.Done()
		return ctx.Err()
	}
	cs := []Collector{{ID: "a", Run: slow}, {ID: "b", Run: slow}}
	if Run(context.Background(), w, &Env{}, cs, RunOptions{Parallel: 1, Deadline: 30 * time.Millisecond}) {
		t.Error("complete")
	}
	b := closeAndVerify(t, w, path)
	if r := result(t, b, "a"); r.Status != "timeout" || !strings.Contains(r.Error, "--timeout") {
		t.Errorf("a: %+v", r)
	}
	if r := result(t, b, "b"); r.Status != "skipped" || !strings.Contains(r.Error, "not started") {
		t.Errorf("b: %+v", r)
	}
}

// Ctrl-C: the running collector ends as interrupted, the bundle is still
// written with what was collected.
func TestRunInterrupted(t *testing.T) {
	w, path := newTestWriter(t)
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	cs := []Collector{
		{ID: "first", Run: func(ctx context.Context, e *Env, out *Output) error {
			return out.WriteText("host/os.json", []byte("{}"))
		}},
		{ID: "long", Run: func(ctx context.Context, e *Env, out *Output) error {
			close(started)
			<-ctx.Done()
			return ctx.Err()
		}},
	}
	go func() { <-started; cancel() }()
	if Run(ctx, w, &Env{}, cs, RunOptions{Parallel: 2}) {
		t.Error("complete")
	}
	b := closeAndVerify(t, w, path)
	if r := result(t, b, "long"); r.Status != "failed" || r.Error != "interrupted" {
		t.Errorf("long: %+v", r)
	}
	if !b.Has("host/os.json") {
		t.Error("first collector's file lost")
	}
}

// No more than Parallel collectors run at once.
func TestRunBoundsParallelism(t *testing.T) {
	w, path := newTestWriter(t)
	var mu sync.Mutex
	running, peak := 0, 0
	var cs []Collector
	for _, id := range []string{"a", "b", "c", "d", "e", "f"} {
		cs = append(cs, Collector{ID: id, Run: func(ctx context.Context, e *Env, out *Output) error {
			mu.Lock()
			running++
			peak = max(peak, running)
			mu.Unlock()
			time.Sleep(10 * time.Millisecond)
			mu.Lock()
			running--
			mu.Unlock()
			return nil
		}})
	}
	if !Run(context.Background(), w, &Env{}, cs, RunOptions{Parallel: 3}) {
		t.Error("not complete")
	}
	closeAndVerify(t, w, path)
	if peak > 3 || peak < 2 {
		t.Errorf("peak parallelism %d, want 2..3", peak)
	}
}

// Redactions are recorded in the manifest by kind and count.
func TestOutputRecordsRedactions(t *testing.T) {
	w, path := newTestWriter(t)
	cs := []Collector{{ID: "cni", Run: func(ctx context.Context, e *Env, out *Output) error {
		return out.WriteText("config/cni/calico-kubeconfig", []byte("users:\n- user:\n    token: abcdefgh12345\n"))
	}}}
	Run(context.Background(), w, &Env{}, cs, RunOptions{})
	b := closeAndVerify(t, w, path)
	fe, ok := b.Manifest.File("config/cni/calico-kubeconfig")
	if !ok || len(fe.Redacted) != 1 || fe.Redacted[0].Kind != "token" || fe.Redacted[0].Count != 1 {
		t.Fatalf("manifest entry %+v", fe)
	}
	data, _ := b.ReadFile("config/cni/calico-kubeconfig")
	if strings.Contains(string(data), "abcdefgh12345") {
		t.Error("token in the bundle")
	}
}
