package monitor

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wincni/diag/bundle"
	"github.com/wincni/diag/collectors"
)

// roundCollectors are the collectors a live round runs: the state the
// per-node rules judge, cheap to read. VFP (a vfpctrl process per port and
// query) runs every VFPEvery rounds; firewall, OS, port ranges, logs and
// the HNS event channels are left to the flight recorder's full bundle.
var roundCollectors = map[string][]string{
	"windows": {"hns-v2", "hns-v1", "host-adapters", "host-routes", "kube-proxy", "cni-config", "flannel-config", "calico-config", "node-config"},
	"linux":   {"linux-net", "cni-config", "flannel-config", "calico-config", "kube-proxy"},
}

// hnsCollectors are those whose failure means HNS did not answer.
var hnsCollectors = []string{"hns-v2", "hns-v1"}

// LiveSource takes the node's state through the collectors, into a bundle
// in Dir that lives for the round.
type LiveSource struct {
	GOOS     string
	Env      *collectors.Env
	Kube     KubeView // the Kubernetes objects the rules read; nil without an API server
	VFPEvery int      // take VFP state every this many rounds (Windows); 0: never
	Dir      string   // where the round's bundle is written
	Version  string
	Timeout  time.Duration // a round's collection; 0: 45 s

	mu    sync.Mutex
	round int
}

// KubeView writes the node's Kubernetes objects into a round's bundle, from
// a watch rather than a list per round.
type KubeView interface {
	// Collector writes k8s/*.json from what the watch holds.
	Collector() collectors.Collector
	// Err is nil when the watch is synced and answering, else why not.
	Err() error
}

// Plan is the round's collectors: those of roundCollectors, VFP on every
// VFPEvery-th round, and the Kubernetes view.
func (l *LiveSource) Plan(round int) ([]collectors.Collector, error) {
	var all []collectors.Collector
	switch l.GOOS {
	case "windows":
		all = collectors.WindowsCollectors()
	case "linux":
		all = collectors.LinuxCollectors()
	default:
		return nil, fmt.Errorf("diag monitor runs on Windows and Linux nodes, not %s", l.GOOS)
	}
	want := roundCollectors[l.GOOS]
	var plan []collectors.Collector
	for _, c := range all {
		if slices.Contains(want, c.ID) || c.ID == "vfp" && l.VFPEvery > 0 && round%l.VFPEvery == 0 {
			plan = append(plan, c)
		}
	}
	if l.Kube != nil {
		plan = append(plan, l.Kube.Collector())
	}
	return plan, nil
}

// Take runs the round's collectors into a bundle and opens it.
func (l *LiveSource) Take(ctx context.Context) (*Taken, error) {
	l.mu.Lock()
	round := l.round
	l.round++
	l.mu.Unlock()
	plan, err := l.Plan(round)
	if err != nil {
		return nil, err
	}
	timeout := l.Timeout
	if timeout <= 0 {
		timeout = 45 * time.Second
	}
	path := filepath.Join(l.Dir, fmt.Sprintf("round-%d.zip", round))
	m := bundle.Manifest{Node: l.Env.NodeName, OS: l.GOOS, Tool: &bundle.ToolInfo{Name: "diag", Version: l.Version},
		Options: map[string]string{"monitor.round": fmt.Sprint(round)}}
	res, err := collectors.Collect(ctx, path, m, l.Env, plan, collectors.RunOptions{Parallel: 4, Deadline: timeout})
	if err != nil {
		return nil, err
	}
	b, err := bundle.Open(res.Path, bundle.DefaultLimits)
	if err != nil {
		os.Remove(res.Path)
		return nil, err
	}
	t := &Taken{Bundle: b, Label: "live", Sources: map[string]error{}, release: func() {
		b.Close()
		os.Remove(res.Path)
		os.Remove(res.Path + ".sha256")
	}}
	if l.GOOS == "windows" {
		t.Sources[SourceHNS] = hnsStatus(b)
	}
	if l.Kube != nil {
		t.Sources[SourceKubernetes] = l.Kube.Err()
	}
	return t, nil
}

// hnsStatus is nil when an HNS collector ended ok or partial, else the
// first one's error with the first query error diag.log has: the
// manifest says that no query answered, the log says why.
func hnsStatus(b *bundle.Bundle) error {
	m := b.Manifest
	if m == nil {
		return errorf("no manifest in the round's bundle")
	}
	var first error
	for _, c := range m.Collectors {
		if !slices.Contains(hnsCollectors, c.ID) {
			continue
		}
		if c.Status == bundle.StatusOK || c.Status == bundle.StatusPartial {
			return nil
		}
		if first == nil {
			first = errorf("%s %s: %s%s", c.ID, c.Status, c.Error, firstLogged(b, c.ID+": "))
		}
	}
	if first == nil {
		first = errorf("no HNS collector ran")
	}
	return first
}

// firstLogged is "; " and the first line of diag.log a collector wrote
// after it started, or "".
func firstLogged(b *bundle.Bundle, prefix string) string {
	data, err := b.ReadFile("diag.log")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		_, msg, _ := strings.Cut(line, " ") // the time
		if rest, ok := strings.CutPrefix(msg, prefix); ok && rest != "started" && !strings.HasPrefix(rest, "done") {
			return "; " + rest
		}
	}
	return ""
}

// Record runs every collector of diag collect (the full bundle, redacted
// as collect redacts) into path.
func (l *LiveSource) Record(ctx context.Context, _ *Taken, path string) error {
	plan, err := collectors.Plan(l.GOOS, l.Env.Kube != nil || l.Env.KubeErr != nil, 0, nil, nil)
	if err != nil {
		return err
	}
	m := bundle.Manifest{Node: l.Env.NodeName, OS: l.GOOS, Tool: &bundle.ToolInfo{Name: "diag", Version: l.Version},
		Options: map[string]string{"monitor.recorded": "a new fail"}}
	_, err = collectors.Collect(ctx, path, m, l.Env, plan, collectors.RunOptions{Parallel: 4, Deadline: 3 * time.Minute})
	return err
}
