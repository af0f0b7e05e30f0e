package monitor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wincni/diag/bundle"
	"github.com/wincni/diag/collectors"
	"github.com/wincni/diag/manifest"
)

// roundCollectors are the collectors a live round runs besides HNS: the
// small state the per-node rules judge. VFP (a vfpctrl process per port
// and query) runs every VFPEvery rounds; firewall, OS, port ranges, logs
// and the HNS event channels are left to the flight recorder's full bundle.
var roundCollectors = map[string][]string{
	"windows": {"host-adapters", "host-routes", "kube-proxy", "cni-config", "flannel-config", "calico-config", "node-config"},
	"linux":   {"linux-net", "cni-config", "flannel-config", "calico-config", "kube-proxy"},
}

// hnsQuery is one HNS query of a round and the bundle file it fills.
type hnsQuery struct {
	file string
	read func(ctx context.Context, h collectors.HNSSource) ([]byte, error)
}

func listV2(kind collectors.HNSKind) func(context.Context, collectors.HNSSource) ([]byte, error) {
	return func(ctx context.Context, h collectors.HNSSource) ([]byte, error) { return h.ListV2(ctx, kind, false) }
}

func getV1(p string) func(context.Context, collectors.HNSSource) ([]byte, error) {
	return func(ctx context.Context, h collectors.HNSSource) ([]byte, error) { return h.GetV1(ctx, p) }
}

// hnsQueries are the files of the hns-v2 and hns-v1 collectors that formats
// reads (the Detailed copies are left to the flight recorder).
var hnsQueries = []hnsQuery{
	{"hns/v2/networks.json", listV2(collectors.HNSNetworks)},
	{"hns/v2/endpoints.json", listV2(collectors.HNSEndpoints)},
	{"hns/v2/loadbalancers.json", listV2(collectors.HNSLoadBalancers)},
	{"hns/v2/namespaces.json", listV2(collectors.HNSNamespaces)},
	{"hns/v2/routes.json", listV2(collectors.HNSRoutes)},
	{"hns/v2/globals.json", getV1("/globals/version")},
	{"hns/v2/features.json", func(ctx context.Context, h collectors.HNSSource) ([]byte, error) { return h.GetFeatures(ctx) }},
	{"hns/v1/networks.json", getV1("/networks/")},
	{"hns/v1/endpoints.json", getV1("/endpoints/")},
	{"hns/v1/policylists.json", getV1("/policylists/")},
}

// LiveSource takes the node's state into a bundle directory that lives for
// the round. HNS is queried through the collectors' HNS source (hcsshim's
// DLL entry points) and the Kubernetes objects come from the watches;
// both are written as read, not redacted and not zipped: they are the
// bulk of a round (tens of MB on a large cluster's node), and the round's
// directory never leaves the process (the flight recorder's bundle is
// diag collect's, redacted). The other state comes from the collectors of
// roundCollectors, as diag collect takes it.
type LiveSource struct {
	GOOS string
	Env  *collectors.Env
	Kube KubeView // the Kubernetes objects the rules read; nil without an API server
	// KubeErr is why Kube is nil (no credentials, a kubeconfig that does
	// not load): each round reports it as the kubernetes source, so that
	// the metrics and /readyz say it, not only the log at start.
	KubeErr  error
	VFPEvery int    // take VFP state every this many rounds (Windows); 0: never
	Dir      string // where the round's bundle is written
	Version  string
	Timeout  time.Duration // a round's collection; 0: 45 s

	mu    sync.Mutex
	round int
}

// KubeView gives a round the node's Kubernetes objects, from watches
// rather than a list per round.
type KubeView interface {
	// Lists are the k8s/*.json files of what the watches hold, by bundle
	// path: the kinds not yet listed are missing.
	Lists() (map[string][]byte, error)
	// Err is nil when the watches are synced and answering, else why not.
	Err() error
}

// Plan is the round's collectors: those of roundCollectors.
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
		if slices.Contains(want, c.ID) {
			plan = append(plan, c)
		}
	}
	return plan, nil
}

// vfpRound says whether a round reads VFP.
func (l *LiveSource) vfpRound(round int) bool {
	return l.GOOS == "windows" && l.VFPEvery > 0 && round%l.VFPEvery == 0
}

// Take reads the round's state into a directory and opens it as a bundle.
func (l *LiveSource) Take(ctx context.Context) (t *Taken, err error) {
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
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	dir := filepath.Join(l.Dir, fmt.Sprintf("round-%d", round))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	defer func() {
		if t == nil {
			os.RemoveAll(dir)
		}
	}()
	sources := map[string]error{}
	m := manifest.Manifest{Format: manifest.Format, Version: manifest.Version, Node: l.Env.NodeName, OS: l.GOOS,
		Tool: &manifest.ToolInfo{Name: "diag", Version: l.Version}, Options: map[string]string{"monitor.round": fmt.Sprint(round)}}
	if l.GOOS == "windows" {
		res, err := l.readHNS(ctx, dir)
		if err != nil {
			return nil, err
		}
		m.Collectors = append(m.Collectors, res)
		sources[SourceHNS] = nil
		if res.Status == manifest.StatusFailed {
			sources[SourceHNS] = errors.New(res.Error)
		}
		if l.vfpRound(round) {
			res, err := l.readVFP(ctx, dir)
			if err != nil {
				return nil, err
			}
			m.Collectors = append(m.Collectors, res)
		}
	}
	if l.Kube != nil {
		lists, err := l.Kube.Lists()
		if err != nil {
			return nil, err
		}
		for name, data := range lists {
			if err := writeEntry(dir, name, data); err != nil {
				return nil, err
			}
		}
		sources[SourceKubernetes] = l.Kube.Err()
	} else if l.KubeErr != nil {
		sources[SourceKubernetes] = l.KubeErr
	}
	results, err := l.collect(ctx, dir, plan)
	if err != nil {
		return nil, err
	}
	m.Collectors = append(m.Collectors, results...)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	data, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	if err := writeEntry(dir, bundle.ManifestPath, data); err != nil {
		return nil, err
	}
	b, err := bundle.Open(dir, bundle.DefaultLimits)
	if err != nil {
		return nil, err
	}
	return &Taken{Bundle: b, Label: "live", Sources: sources, release: func() {
		b.Close()
		os.RemoveAll(dir)
	}}, nil
}

// readHNS runs the HNS queries into dir. No query answered is the HNS
// source down (with the first error), not a failed round: the rules that
// need HNS skip, the others run.
func (l *LiveSource) readHNS(ctx context.Context, dir string) (manifest.CollectorResult, error) {
	start := time.Now()
	res := manifest.CollectorResult{ID: "hns", Started: start.UTC().Format(time.RFC3339Nano)}
	var first error
	answered := 0
	if l.Env.HNS == nil {
		first = fmt.Errorf("HNS: %w", collectors.ErrUnsupported)
	} else {
		for _, q := range hnsQueries {
			data, err := q.read(ctx, l.Env.HNS)
			if err != nil {
				if first == nil {
					first = fmt.Errorf("%s: %w", path.Base(q.file), err)
				}
				continue
			}
			if err := writeEntry(dir, q.file, data); err != nil {
				return res, err
			}
			res.Files = append(res.Files, q.file)
			answered++
		}
	}
	res.DurationMS = time.Since(start).Milliseconds()
	switch {
	case answered == 0:
		res.Status, res.Error = manifest.StatusFailed, first.Error()
	case first != nil:
		res.Status, res.Error = manifest.StatusPartial, first.Error()
	default:
		res.Status = manifest.StatusOK
	}
	return res, nil
}

// vfpPortQueries are what a round asks vfpctrl of each port: its rules
// (HOST-03, the endpoints without VFP rules) and its state (blocked).
var vfpPortQueries = []string{"/list-rule", "/get-port-state"}

// readVFP dumps the vSwitch ports into dir as the vfp collector names its
// files (vfp/ports.txt, vfp/port-<name>.txt), one port at a time: a large
// cluster's node has a thousand encap rules per port, and the collector's
// eight ports at once, redacted, would be the round's peak of memory.
func (l *LiveSource) readVFP(ctx context.Context, dir string) (manifest.CollectorResult, error) {
	start := time.Now()
	res := manifest.CollectorResult{ID: "vfp", Started: start.UTC().Format(time.RFC3339Nano)}
	defer func() { res.DurationMS = time.Since(start).Milliseconds() }()
	list, err := l.Env.Runner.Run(ctx, "vfpctrl", "/list-vmswitch-port")
	if err != nil {
		res.Status, res.Error = manifest.StatusFailed, "vfpctrl /list-vmswitch-port: "+err.Error()
		return res, nil
	}
	if err := writeEntry(dir, "vfp/ports.txt", list); err != nil {
		return res, err
	}
	res.Files = append(res.Files, "vfp/ports.txt")
	var first error
	var text []byte // one buffer for every port: writeEntry keeps none of it
	for _, port := range collectors.VFPPortNames(list) {
		text = text[:0]
		for _, q := range vfpPortQueries {
			if ctx.Err() != nil {
				return res, ctx.Err()
			}
			out, err := l.Env.Runner.Run(ctx, "vfpctrl", "/port", port, q)
			if err != nil {
				if first == nil {
					first = fmt.Errorf("vfpctrl /port %s %s: %w", port, q, err)
				}
				continue
			}
			text = append(text, out...)
			if len(out) > 0 && out[len(out)-1] != '\n' {
				text = append(text, '\n')
			}
		}
		if len(text) == 0 {
			continue
		}
		name := "vfp/port-" + bundle.FileNamePart(port) + ".txt"
		if err := writeEntry(dir, name, text); err != nil {
			return res, err
		}
		res.Files = append(res.Files, name)
	}
	res.Status = manifest.StatusOK
	if first != nil {
		res.Status, res.Error = manifest.StatusPartial, first.Error()
	}
	return res, nil
}

// collect runs the round's collectors as diag collect runs them (the
// runner, timeouts, redaction) into a zip beside dir, and moves its
// entries into dir.
func (l *LiveSource) collect(ctx context.Context, dir string, plan []collectors.Collector) ([]manifest.CollectorResult, error) {
	zipPath := dir + ".zip"
	defer os.Remove(zipPath)
	defer os.Remove(zipPath + ".sha256")
	m := manifest.Manifest{Node: l.Env.NodeName, OS: l.GOOS}
	if _, err := collectors.Collect(ctx, zipPath, m, l.Env, plan, collectors.RunOptions{Parallel: 4}); err != nil {
		return nil, err
	}
	zb, err := bundle.Open(zipPath, bundle.DefaultLimits)
	if err != nil {
		return nil, err
	}
	defer zb.Close()
	for _, name := range zb.Names() {
		if name == bundle.ManifestPath {
			continue
		}
		data, err := zb.ReadFile(name)
		if err != nil {
			return nil, err
		}
		if err := writeEntry(dir, name, data); err != nil {
			return nil, err
		}
	}
	if zb.Manifest == nil {
		return nil, nil
	}
	return zb.Manifest.Collectors, nil
}

// writeEntry writes a bundle entry under dir.
func writeEntry(dir, name string, data []byte) error {
	if err := bundle.ValidName(name); err != nil || strings.Contains(name, "..") {
		return fmt.Errorf("entry %q: not a bundle path", name)
	}
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	return os.WriteFile(p, data, 0o600)
}

// Record runs every collector of diag collect (the full bundle, redacted
// as collect redacts) into path.
func (l *LiveSource) Record(ctx context.Context, _ *Taken, path string) error {
	plan, err := collectors.Plan(l.GOOS, l.Env.Kube != nil || l.Env.KubeErr != nil, 0, nil, nil)
	if err != nil {
		return err
	}
	m := manifest.Manifest{Node: l.Env.NodeName, OS: l.GOOS, Tool: &manifest.ToolInfo{Name: "diag", Version: l.Version},
		Options: map[string]string{"monitor.recorded": "a new fail"}}
	_, err = collectors.Collect(ctx, path, m, l.Env, plan, collectors.RunOptions{Parallel: 4, Deadline: 3 * time.Minute})
	return err
}
