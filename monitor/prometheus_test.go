package monitor

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/wincni/diag/gen"
)

// TestPrometheusSeesFindingAppearAndClear runs a real Prometheus server
// (Debian's prometheus package) scraping a monitor whose fake HNS loses a
// RemoteSubnetRoute and gets it back: a PromQL query over Prometheus' HTTP
// API sees OVL-02 appear, then clear. promtool check metrics judges what
// /metrics serves. make test-monitor sets DIAG_TEST_PROMETHEUS (the
// prometheus binary; promtool beside it); without it the test skips.
func TestPrometheusSeesFindingAppearAndClear(t *testing.T) {
	bin := os.Getenv("DIAG_TEST_PROMETHEUS")
	if bin == "" {
		t.Skip("make test-monitor runs this test against a real Prometheus (DIAG_TEST_PROMETHEUS=/usr/bin/prometheus)")
	}
	promtool := filepath.Join(filepath.Dir(bin), "promtool")
	for _, b := range []string{bin, promtool} {
		if _, err := os.Stat(b); err != nil {
			t.Fatalf("%v (apt-get install prometheus)", err)
		}
	}

	f := newFakeNode(t, gen.ClusterNode{Nodes: 5, LocalPods: 5, VFPPorts: 2})
	mon := New(f.source(t), Options{Interval: 200 * time.Millisecond, Jitter: -1, Version: "test"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	monLn := listen(t)
	srv := &http.Server{Handler: mon.Handler()}
	go srv.Serve(monLn)
	defer srv.Close()
	running := make(chan error, 1)
	go func() { running <- mon.Run(ctx) }()

	// promtool check metrics on what a scrape gets after a round with a
	// finding, so that every metric family is there.
	restore := f.dropRemoteSubnetRoute(t)
	waitFor(t, 30*time.Second, "a round with OVL-02", func() (bool, string) {
		s := findingSeries(t, mon)
		return hasSeries(s, "OVL-02 fail"), fmt.Sprint(s)
	})
	body := httpGet(t, "http://"+monLn.Addr().String()+"/metrics")
	check := exec.Command(promtool, "check", "metrics")
	check.Stdin = strings.NewReader(body)
	out, err := check.CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) != 0 {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
	restore()

	dir := t.TempDir()
	promLn := listen(t)
	promAddr := promLn.Addr().String()
	promLn.Close() // Prometheus binds it itself
	cfg := fmt.Sprintf("global:\n  scrape_interval: 250ms\n  scrape_timeout: 200ms\nscrape_configs:\n  - job_name: diag-monitor\n    static_configs:\n      - targets: ['%s']\n", monLn.Addr())
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	prom := exec.Command(bin, "--config.file="+filepath.Join(dir, "prometheus.yml"), "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+promAddr, "--log.level=warn")
	prom.Stdout, prom.Stderr = &log, &log
	if err := prom.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		prom.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { prom.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			prom.Process.Kill()
		}
		if t.Failed() {
			t.Logf("prometheus said:\n%s", log.String())
		}
	}()
	api := "http://" + promAddr
	waitFor(t, 60*time.Second, "Prometheus ready", func() (bool, string) {
		resp, err := http.Get(api + "/-/ready")
		if err != nil {
			return false, err.Error()
		}
		resp.Body.Close()
		return resp.StatusCode == 200, resp.Status
	})

	// Healthy first: the target is up and no OVL-02 series.
	waitFor(t, 60*time.Second, "the monitor scraped, healthy", func() (bool, string) {
		up := query(t, api, `up{job="diag-monitor"} == 1`)
		ovl := query(t, api, `diag_monitor_finding{rule="OVL-02"}`)
		return len(up) == 1 && len(ovl) == 0, fmt.Sprintf("up %v, OVL-02 %v", up, ovl)
	})
	restore = f.dropRemoteSubnetRoute(t)
	waitFor(t, 60*time.Second, "OVL-02 appearing in Prometheus", func() (bool, string) {
		r := query(t, api, `diag_monitor_finding{rule="OVL-02",severity="fail"} == 1`)
		return len(r) == 1, fmt.Sprint(r)
	})
	if r := query(t, api, `diag_monitor_findings{severity="fail"} >= 1`); len(r) != 1 {
		t.Errorf("diag_monitor_findings{severity=fail}: %v", r)
	}
	restore()
	waitFor(t, 60*time.Second, "OVL-02 clearing in Prometheus", func() (bool, string) {
		r := query(t, api, `diag_monitor_finding{rule="OVL-02"}`)
		return len(r) == 0, fmt.Sprint(r)
	})
	// Over the last minute the series existed: the query saw it appear
	// and clear, not an empty database.
	if r := query(t, api, `max_over_time(diag_monitor_finding{rule="OVL-02"}[1m])`); len(r) != 1 {
		t.Errorf("max_over_time over the last minute: %v, want the series that appeared", r)
	}
	cancel()
	if err := <-running; err != nil {
		t.Errorf("Run: %v", err)
	}
}

func listen(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

func httpGet(t *testing.T, u string) string {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %s", u, resp.Status)
	}
	return string(body)
}

// query runs an instant PromQL query and returns the result's label sets.
func query(t *testing.T, api, q string) []map[string]string {
	t.Helper()
	resp, err := http.Get(api + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Status string
		Error  string
		Data   struct {
			Result []struct {
				Metric map[string]string
			}
		}
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 8<<20)).Decode(&r); err != nil {
		t.Fatalf("query %s: %v", q, err)
	}
	if r.Status != "success" {
		t.Fatalf("query %s: %s %s", q, r.Status, r.Error)
	}
	var out []map[string]string
	for _, x := range r.Data.Result {
		out = append(out, x.Metric)
	}
	return out
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, limit time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		ok, state := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after %s (last: %s)", what, limit, state)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestPrometheusRules: promtool check rules accepts the alert groups of
// deploy/prometheus-rules.yaml (the PrometheusRule's spec, as a plain rule
// file).
func TestPrometheusRules(t *testing.T) {
	bin := os.Getenv("DIAG_TEST_PROMETHEUS")
	if bin == "" {
		t.Skip("make test-monitor runs this test with promtool (DIAG_TEST_PROMETHEUS=/usr/bin/prometheus)")
	}
	path := filepath.Join(t.TempDir(), "rules.yml")
	writeRuleFile(t, path)
	out, err := exec.Command(filepath.Join(filepath.Dir(bin), "promtool"), "check", "rules", path).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "SUCCESS") {
		t.Errorf("promtool check rules: %v\n%s", err, out)
	}
}

// TestPrometheusRulesFire: promtool test rules runs
// deploy/prometheus-rules.test.yaml (when each alert fires, and for whom)
// on the alert groups of deploy/prometheus-rules.yaml.
func TestPrometheusRulesFire(t *testing.T) {
	bin := os.Getenv("DIAG_TEST_PROMETHEUS")
	if bin == "" {
		t.Skip("make test-monitor runs this test with promtool (DIAG_TEST_PROMETHEUS=/usr/bin/prometheus)")
	}
	promtool := filepath.Join(filepath.Dir(bin), "promtool")
	if _, err := os.Stat(promtool); err != nil {
		t.Skipf("no promtool beside %s: %v", bin, err)
	}
	dir := t.TempDir()
	writeRuleFile(t, filepath.Join(dir, "rules.yml"))
	tests, err := os.ReadFile("../deploy/prometheus-rules.test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "prometheus-rules.test.yaml")
	if err := os.WriteFile(path, tests, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(promtool, "test", "rules", path).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "SUCCESS") {
		t.Errorf("promtool test rules: %v\n%s", err, out)
	}
}

// writeRuleFile writes the PrometheusRule's groups as a plain rule file.
func writeRuleFile(t *testing.T, path string) {
	t.Helper()
	var groups []any
	for _, d := range readRawDocs(t, "../deploy/prometheus-rules.yaml") {
		if d["kind"] == "PrometheusRule" {
			groups = append(groups, d["spec"].(map[string]any)["groups"].([]any)...)
		}
	}
	data, err := yaml.Marshal(map[string]any{"groups": groups})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func readRawDocs(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, part := range strings.Split(string(data), "\n---\n") {
		var d map[string]any
		if err := yaml.Unmarshal([]byte(part), &d); err != nil {
			t.Fatal(err)
		}
		out = append(out, d)
	}
	return out
}
