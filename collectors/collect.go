package collectors

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/wincni/diag/bundle"
	"github.com/wincni/diag/manifest"
)

// Plan is the collectors for an OS, with --only and --skip applied.
func Plan(goos string, kube bool, capture time.Duration, only, skip []string) ([]Collector, error) {
	var all []Collector
	switch goos {
	case "windows":
		all = WindowsCollectors()
	case "linux":
		all = LinuxCollectors()
	default:
		return nil, fmt.Errorf("diag collect runs on Windows and Linux nodes, not %s", goos)
	}
	if kube {
		all = append(all, KubeCollector())
	}
	if capture > 0 {
		all = append(all, CaptureCollector(capture))
	}
	known := map[string]bool{}
	ids := make([]string, 0, len(all))
	for _, c := range all {
		known[c.ID] = true
		ids = append(ids, c.ID)
	}
	sort.Strings(ids)
	for _, id := range append(append([]string{}, only...), skip...) {
		if !known[id] {
			return nil, fmt.Errorf("unknown collector %q (on %s: %s)", id, goos, strings.Join(ids, ", "))
		}
	}
	pick := func(list []string, id string) bool {
		for _, x := range list {
			if x == id {
				return true
			}
		}
		return false
	}
	var out []Collector
	for _, c := range all {
		if (len(only) > 0 && !pick(only, c.ID)) || pick(skip, c.ID) {
			continue
		}
		out = append(out, c)
	}
	return out, nil
}

// Result is what a collection produced.
type Result struct {
	Path     string
	SHA256   string
	Complete bool // every collector ended ok, skipped or unsupported
}

// Collect runs the collectors into a new bundle at path. The bundle is
// written even when collectors fail or ctx is cancelled (Ctrl-C): only a
// failure to write the bundle itself is an error, and then nothing is left
// at path.
func Collect(ctx context.Context, path string, m manifest.Manifest, e *Env, cs []Collector, opts RunOptions) (Result, error) {
	start := time.Now().UTC()
	m.Started = &start
	w, err := bundle.Create(path, m)
	if err != nil {
		return Result{}, err
	}
	complete := Run(ctx, w, e, cs, opts)
	end := time.Now().UTC()
	w.SetFinished(end)
	sum, err := w.Close()
	if err != nil {
		return Result{}, fmt.Errorf("write %s: %w", path, err)
	}
	return Result{Path: path, SHA256: sum, Complete: complete}, nil
}
