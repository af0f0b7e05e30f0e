package monitor

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/wincni/diag/deploy/deploytest"
	"github.com/wincni/diag/gen"
)

// deploy/monitor.yaml: read verbs on what the rules need, create and patch
// on Events in the default namespace, nothing else; a HostProcess pod as
// SYSTEM on Windows nodes and a host-network pod on Linux ones, each told
// its node and probed on the monitor's /healthz and /readyz.
func TestDeployMonitorManifest(t *testing.T) {
	read := map[string]bool{"get": true, "list": true, "watch": true}
	granted := map[string][]string{} // "group/resource" → verbs
	var daemonsets []deploytest.Doc
	for _, d := range deploytest.Read(t, "../deploy/monitor.yaml") {
		switch d.Kind {
		case "ClusterRole", "Role":
			for _, r := range d.Rules {
				for _, g := range r.APIGroups {
					for _, res := range r.Resources {
						key := g + "/" + res
						if d.Kind == "Role" {
							key = d.Metadata.Namespace + ":" + key
						}
						granted[key] = append(granted[key], r.Verbs...)
					}
				}
				for _, v := range r.Verbs {
					if !read[v] && !(d.Kind == "Role" && slices.Equal(r.Resources, []string{"events"}) && (v == "create" || v == "patch")) {
						t.Errorf("%s %s grants %q on %v: the monitor only reads, and writes Events", d.Kind, d.Metadata.Name, v, r.Resources)
					}
					if v == "*" {
						t.Errorf("%s %s grants every verb", d.Kind, d.Metadata.Name)
					}
				}
			}
		case "DaemonSet":
			daemonsets = append(daemonsets, d)
		}
	}
	for _, want := range []string{"/nodes", "/services", "/pods", "discovery.k8s.io/endpointslices"} {
		if v := granted[want]; !slices.Contains(v, "list") || !slices.Contains(v, "watch") {
			t.Errorf("%s: verbs %v, the watches need list and watch", want, v)
		}
	}
	if v := granted["default:/events"]; !slices.Contains(v, "create") || !slices.Contains(v, "patch") {
		t.Errorf("events in default: %v, want create and patch", v)
	}
	for key := range granted {
		if strings.Contains(key, "secrets") || strings.Contains(key, "configmaps") {
			t.Errorf("grants %s, which no rule reads", key)
		}
	}
	oses := map[string]bool{}
	for _, d := range daemonsets {
		s := d.Spec.Template.Spec
		os := s.NodeSelector["kubernetes.io/os"]
		oses[os] = true
		if !s.HostNetwork {
			t.Errorf("%s: not on the host network", d.Metadata.Name)
		}
		if os == "windows" && (!s.SecurityContext.WindowsOptions.HostProcess || s.SecurityContext.WindowsOptions.RunAsUserName != `NT AUTHORITY\SYSTEM`) {
			t.Errorf("%s: HostProcess %v as %q", d.Metadata.Name, s.SecurityContext.WindowsOptions.HostProcess, s.SecurityContext.WindowsOptions.RunAsUserName)
		}
		c := s.Containers[0]
		cmd := strings.Join(append(c.Command, c.Args...), " ")
		if !strings.Contains(cmd, "monitor") || !strings.Contains(cmd, "--listen :9640") || !strings.Contains(cmd, "--record-dir") {
			t.Errorf("%s runs %q", d.Metadata.Name, cmd)
		}
		var node bool
		for _, e := range c.Env {
			node = node || e.Name == "NODE_NAME" && e.ValueFrom.FieldRef.FieldPath == "spec.nodeName"
		}
		if !node {
			t.Errorf("%s: no NODE_NAME from spec.nodeName", d.Metadata.Name)
		}
		if c.LivenessProbe.HTTPGet.Path != "/healthz" || c.ReadinessProbe.HTTPGet.Path != "/readyz" || c.LivenessProbe.HTTPGet.Port != 9640 || c.ReadinessProbe.HTTPGet.Port != 9640 {
			t.Errorf("%s: probes %+v %+v", d.Metadata.Name, c.LivenessProbe, c.ReadinessProbe)
		}
	}
	if !oses["windows"] || !oses["linux"] {
		t.Errorf("DaemonSets for %v, want windows and linux", oses)
	}
}

var metricName = regexp.MustCompile(`\bdiag_monitor_[a-z_]+`)

// exported is every metric name the monitor can serve, histogram series
// included.
func exported(t *testing.T) map[string]bool {
	t.Helper()
	f := newFakeNode(t, gen.ClusterNode{Nodes: 3, LocalPods: 2})
	mon := New(f.source(t), Options{})
	round(t, mon)
	names := map[string]bool{}
	ch := make(chan *prometheus.Desc, 100)
	go func() {
		for _, c := range []prometheus.Collector{mon.m.rounds, mon.m.roundDuration, mon.m.lastGood, mon.m.events, mon.m.recordings, mon.m.recordsKept, mon.m.hnsRestarts} {
			c.Describe(ch)
		}
		s := descs()
		for _, d := range []*prometheus.Desc{s.finding, s.findings, s.dropped, s.rules, s.objects, s.noVFP, s.vfpPresent, s.unjudged, s.source,
			s.hnsUp, s.hnsObservable, s.hnsThreads, s.hnsHandles, s.hnsMemory, s.hnsStart} {
			ch <- d
		}
		close(ch)
	}()
	fq := regexp.MustCompile(`fqName: "([^"]+)"`)
	for d := range ch {
		if m := fq.FindStringSubmatch(d.String()); m != nil {
			names[m[1]] = true
		}
	}
	for n := range names {
		if strings.HasSuffix(n, "_seconds") && strings.Contains(n, "duration") {
			names[n+"_bucket"], names[n+"_sum"], names[n+"_count"] = true, true, true
		}
	}
	return names
}

// The alerts and the dashboard name only metrics the monitor serves.
func TestDeployMetricNames(t *testing.T) {
	names := exported(t)
	var alerts int
	for _, d := range deploytest.Read(t, "../deploy/prometheus-rules.yaml") {
		for _, g := range d.Spec.Groups {
			for _, r := range g.Rules {
				alerts++
				for _, n := range metricName.FindAllString(r.Expr, -1) {
					if !names[n] {
						t.Errorf("alert %s: %s is no metric of the monitor", r.Alert, n)
					}
				}
			}
		}
	}
	if alerts == 0 {
		t.Error("deploy/prometheus-rules.yaml has no alert")
	}
	data, err := os.ReadFile("../deploy/grafana-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatalf("grafana-dashboard.json: %v", err)
	}
	seen := map[string]bool{}
	for _, p := range dash.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, q := range p.Targets {
			for _, n := range metricName.FindAllString(q.Expr, -1) {
				seen[n] = true
				if !names[n] {
					t.Errorf("panel %q: %s is no metric of the monitor", p.Title, n)
				}
			}
		}
	}
	for _, want := range []string{"diag_monitor_finding", "diag_monitor_hns_service_threads", "diag_monitor_endpoints_without_vfp_rules", "diag_monitor_last_good_round_timestamp_seconds"} {
		if !seen[want] {
			t.Errorf("the dashboard does not show %s", want)
		}
	}
}
