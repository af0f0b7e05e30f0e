package monitor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/wincni/diag/bundle"
)

// DefaultRecordKeep is how many flight-recorder bundles are kept.
const DefaultRecordKeep = 10

// Recorder is the flight recorder: a full redacted bundle of the moment a
// new fail appeared, under Dir, the last Keep of them kept.
type Recorder struct {
	Dir  string
	Keep int
	Node string
}

// Check makes sure the record directory exists and takes a file: the
// monitor says so in a metric and /readyz when it does not, every round,
// not only when a fail needs recording.
func (r *Recorder) Check() error {
	if err := os.MkdirAll(r.Dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(r.Dir, ".diag-monitor-probe-*")
	if err != nil {
		return err
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// prefix is what every recording of this node is named by.
func (r *Recorder) prefix() string { return "diag-" + bundle.FileNamePart(r.Node) + "-" }

// Write records the moment t was taken through src, then removes the
// oldest recordings beyond Keep. It returns the bundle's path.
func (r *Recorder) Write(ctx context.Context, src Source, t *Taken, at time.Time, rule string) (string, error) {
	if err := r.Check(); err != nil {
		return "", err
	}
	name := r.prefix() + at.UTC().Format("20060102T150405.000Z") + "-" + bundle.FileNamePart(rule) + ".zip"
	path := filepath.Join(r.Dir, name)
	if err := src.Record(ctx, t, path); err != nil {
		os.Remove(path)
		os.Remove(path + ".sha256")
		return "", fmt.Errorf("record %s: %w", path, err)
	}
	return path, r.rotate()
}

// Kept lists the recordings of this node, oldest first (their names sort
// by time).
func (r *Recorder) Kept() ([]string, error) {
	entries, err := os.ReadDir(r.Dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if n := e.Name(); e.Type().IsRegular() && strings.HasPrefix(n, r.prefix()) && strings.HasSuffix(n, ".zip") {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out, nil
}

func (r *Recorder) rotate() error {
	keep := r.Keep
	if keep <= 0 {
		keep = DefaultRecordKeep
	}
	kept, err := r.Kept()
	if err != nil {
		return err
	}
	var first error
	for _, n := range kept[:max(0, len(kept)-keep)] {
		p := filepath.Join(r.Dir, n)
		if err := os.Remove(p); err != nil && first == nil {
			first = err
		}
		os.Remove(p + ".sha256")
	}
	return first
}
