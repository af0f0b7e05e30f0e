package monitor

import (
	"context"
	"path/filepath"
	"sync"

	"github.com/wincni/diag/bundle"
	"github.com/wincni/diag/manifest"
	"github.com/wincni/diag/redact"
)

// ReplaySource plays saved bundles, one per round, in the order given:
// for tests, demos and replaying a post-mortem.
type ReplaySource struct {
	Paths   []string
	Limits  bundle.Limits // zero: bundle.DefaultLimits
	Version string        // the tool version written in recorded manifests

	mu   sync.Mutex
	next int
}

// Take opens the next bundle; after the last, ErrReplayDone.
func (r *ReplaySource) Take(ctx context.Context) (*Taken, error) {
	r.mu.Lock()
	if r.next >= len(r.Paths) {
		r.mu.Unlock()
		return nil, ErrReplayDone
	}
	p := r.Paths[r.next]
	r.next++
	r.mu.Unlock()
	lim := r.Limits
	if lim.MaxEntries == 0 {
		lim = bundle.DefaultLimits
	}
	b, err := bundle.Open(p, lim)
	if err != nil {
		return nil, err
	}
	return &Taken{Bundle: b, Label: p, Sources: map[string]error{SourceReplay: nil}, release: func() { b.Close() }}, nil
}

// Record rewrites the replayed bundle through the redaction of diag bundle
// redact: what a collection of that moment would have written.
func (r *ReplaySource) Record(ctx context.Context, t *Taken, path string) error {
	m := manifest.Manifest{Tool: &manifest.ToolInfo{Name: "diag", Version: r.Version}, Options: map[string]string{}}
	if old := t.Bundle.Manifest; old != nil {
		m.Node, m.OS, m.Started, m.Finished = old.Node, old.OS, old.Started, old.Finished
	}
	m.Options["monitor.replayed"] = filepath.Base(t.Label)
	w, err := bundle.Create(path, m)
	if err != nil {
		return err
	}
	w.NoReplace()
	if _, err := bundle.Rewrite(ctx, t.Bundle, w, redact.Entry); err != nil {
		w.Abort()
		return err
	}
	_, err = w.Close()
	return err
}
