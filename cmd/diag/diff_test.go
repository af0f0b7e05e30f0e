package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wincni/diag/formats/formatstest"
)

const calicoHealthy = "../../analyzers/testdata/scenarios/calico-healthy"

// diffDoc is the part of `diag diff -o json` the tests read.
type diffDoc struct {
	Old, New struct{ Path, Node string }
	Changes  []struct {
		Kind, Name, ID, Parent, Field, Old, New, Change string
	}
	Notes    []string
	Findings struct {
		New, Resolved, Persisting []struct{ ID string }
	}
}

func diffJSON(t *testing.T, wantCode int, args ...string) diffDoc {
	t.Helper()
	r := runDiag(t, nil, false, append([]string{"diff", "-o", "json"}, args...)...)
	if r.code != wantCode {
		t.Fatalf("diff %v: exit %d, want %d; stderr %q", args, r.code, wantCode, r.stderr)
	}
	var d diffDoc
	if err := json.Unmarshal([]byte(r.stdout), &d); err != nil {
		t.Fatalf("diff %v: %v\n%s", args, err, r.stdout)
	}
	return d
}

func (d diffDoc) has(kind, change, name string) bool {
	for _, c := range d.Changes {
		if c.Kind == kind && c.Change == change && (name == "" || c.Name == name) {
			return true
		}
	}
	return false
}

func ruleIDs(fs []struct{ ID string }) string {
	var ids []string
	for _, f := range fs {
		ids = append(ids, f.ID)
	}
	return strings.Join(ids, ",")
}

func TestDiffIdenticalExits0WithEmptyArrays(t *testing.T) {
	r := runDiag(t, nil, false, "diff", "-o", "json", seedBroken, copyTree(t, seedBroken))
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d %q", r.code, r.stderr)
	}
	for _, want := range []string{`"changes": []`, `"new": []`, `"resolved": []`, `"notes": []`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("JSON lacks %s:\n%s", want, r.stdout)
		}
	}
	if d := diffJSON(t, 0, seedBroken, seedBroken); ruleIDs(d.Findings.Persisting) != "OVL-01" {
		t.Errorf("persisting: %q", ruleIDs(d.Findings.Persisting))
	}
	if r := runDiag(t, nil, false, "diff", seedBroken, seedBroken); r.code != 0 || !strings.Contains(r.stdout, "no changes · findings: 0 new, 0 resolved, 1 persisting") {
		t.Errorf("table: exit %d\n%s", r.code, r.stdout)
	}
}

// An HNS restart: the Calico network back with a new ID, the pods'
// endpoints gone. One "recreated" change, the endpoint removed, exit 3.
func TestDiffHNSRestart(t *testing.T) {
	after := copyTree(t, calicoHealthy)
	const newID = "0F1E2D3C-4B5A-4978-8695-A4B3C2D1E0F9"
	formatstest.EditJSON(t, after, "hns/v1/networks.json", func(ns []map[string]any) []map[string]any {
		for _, n := range ns {
			if n["Name"] == "Calico" {
				n["ID"] = newID
			}
		}
		return ns
	})
	formatstest.EditJSON(t, after, "hns/v1/endpoints.json", func(es []map[string]any) []map[string]any {
		var kept []map[string]any // the remote endpoints come back; the pods' do not
		for _, e := range es {
			if e["IsRemoteEndpoint"] == true {
				e["VirtualNetwork"] = newID
				kept = append(kept, e)
			}
		}
		return kept
	})

	d := diffJSON(t, 3, calicoHealthy, after)
	var recreated int
	for _, c := range d.Changes {
		if c.Kind == "network" && c.Change == "recreated" {
			recreated++
			if c.Name != "Calico" || c.New != newID || c.Old != "FAD80830-616C-4BC2-8758-BA64AEA8F627" {
				t.Errorf("recreated: %+v", c)
			}
		}
	}
	if recreated != 1 || d.has("network", "added", "") || d.has("network", "removed", "") {
		t.Errorf("want one recreated network and no added/removed: %+v", d.Changes)
	}
	if !d.has("endpoint", "removed", "100.244.206.67") {
		t.Errorf("the pod's endpoint is not reported removed: %+v", d.Changes)
	}
	r := runDiag(t, nil, false, "diff", calicoHealthy, after)
	if r.code != 3 || !strings.Contains(r.stdout, "recreated") || !strings.Contains(r.stdout, "new ID "+newID) {
		t.Errorf("table: exit %d\n%s", r.code, r.stdout)
	}
}

func TestDiffLostRemoteSubnetRoutes(t *testing.T) {
	after := copyTree(t, calicoHealthy)
	formatstest.EditJSON(t, after, "hns/v1/networks.json", func(ns []map[string]any) []map[string]any {
		for _, n := range ns {
			n["Policies"] = []any{map[string]any{"Type": "HostRoute"}}
		}
		return ns
	})
	d := diffJSON(t, 3, calicoHealthy, after)
	if !d.has("remoteSubnetRoute", "removed", "100.244.49.64/26") {
		t.Errorf("lost route not reported: %+v", d.Changes)
	}
}

// ManagementIP on the NAT adapter's 10.0.2.15: OVL-01 is new; back again
// it is resolved.
func TestDiffFindingsNewResolvedPersisting(t *testing.T) {
	broken := copyTree(t, calicoHealthy)
	formatstest.EditJSON(t, broken, "hns/v1/networks.json", func(ns []map[string]any) []map[string]any {
		for _, n := range ns {
			if n["Name"] == "Calico" {
				n["ManagementIP"] = "10.0.2.15"
			}
		}
		return ns
	})
	d := diffJSON(t, 3, calicoHealthy, broken)
	if !strings.Contains(ruleIDs(d.Findings.New), "OVL-01") || len(d.Findings.Resolved) != 0 {
		t.Errorf("new %q resolved %q", ruleIDs(d.Findings.New), ruleIDs(d.Findings.Resolved))
	}
	var mgmt bool
	for _, c := range d.Changes {
		mgmt = mgmt || c.Kind == "network" && c.Field == "ManagementIP" && c.Old == "10.20.30.11" && c.New == "10.0.2.15"
	}
	if !mgmt {
		t.Errorf("ManagementIP change missing: %+v", d.Changes)
	}
	d = diffJSON(t, 3, broken, calicoHealthy)
	if !strings.Contains(ruleIDs(d.Findings.Resolved), "OVL-01") || len(d.Findings.New) != 0 {
		t.Errorf("back: new %q resolved %q", ruleIDs(d.Findings.New), ruleIDs(d.Findings.Resolved))
	}
	// The seed's broken node, still broken in collectlogs form: OVL-01
	// persists across formats.
	d = diffJSON(t, 0, "../../testdata/collectlogs/seed-broken", seedBroken)
	if !strings.Contains(ruleIDs(d.Findings.Persisting), "OVL-01") || strings.Contains(ruleIDs(d.Findings.New), "OVL-01") {
		t.Errorf("collectlogs → bundle: new %q persisting %q", ruleIDs(d.Findings.New), ruleIDs(d.Findings.Persisting))
	}
}

// collectlogs yesterday against a diag bundle today of one state: no
// change at all (not the host routes route print derives from the
// adapters' addresses, not an adapter ipconfig does not list because it
// is bound to the vSwitch), exit 0; what the collectlogs folder lacks is
// one note.
func TestDiffCollectlogsAgainstBundle(t *testing.T) {
	d := diffJSON(t, 0, "../../testdata/collectlogs/seed-broken", seedBroken)
	for _, c := range d.Changes {
		t.Errorf("a change across formats of one state: %+v", c)
	}
	if len(d.Notes) != 1 || d.Notes[0] != "OLD has no kube-proxy flags (config/kube-proxy/cmdline.txt): not compared" {
		t.Errorf("notes: %q", d.Notes)
	}
	if d.Old.Node != "winw1" || d.New.Node != "winw1" {
		t.Errorf("nodes %q %q", d.Old.Node, d.New.Node)
	}
}

func TestDiffDifferentNodes(t *testing.T) {
	other := copyTree(t, calicoHealthy)
	writeFile(t, filepath.Join(other, "manifest.json"), []byte(`{"format":"diag-bundle","version":1,"node":"winw2","os":"windows"}`))
	// Another node's kube-proxy names its own Node.
	cmdline := filepath.Join(other, "config", "kube-proxy", "cmdline.txt")
	data, err := os.ReadFile(cmdline)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, cmdline, []byte(strings.ReplaceAll(string(data), "--hostname-override=winw1", "--hostname-override=winw2")))
	// The copy still holds winw1's addresses: without the Node list, no
	// Node claims it, and it is node winw2 as its manifest says.
	if err := os.Remove(filepath.Join(other, "k8s", "nodes.json")); err != nil {
		t.Fatal(err)
	}
	r := runDiag(t, nil, false, "diff", calicoHealthy, other)
	if r.code != 2 || r.stdout != "" || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 ||
		!strings.Contains(r.stderr, "is node winw1 and") || !strings.Contains(r.stderr, "is node winw2") || !strings.Contains(r.stderr, "--any-nodes") {
		t.Errorf("different nodes: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	d := diffJSON(t, 3, "--any-nodes", calicoHealthy, other) // kube-proxy's --hostname-override differs
	if d.Old.Node != "winw1" || d.New.Node != "winw2" {
		t.Errorf("--any-nodes: %+v %+v", d.Old, d.New)
	}
}

func TestDiffUsageAndUnreadableInput(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "gone.zip")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{seedBroken, missing}, "gone.zip"},
		{[]string{seedBroken}, "needs two inputs, OLD and NEW, got 1"},
		{[]string{"-o", "yaml", seedBroken, seedFixed}, "--output must be one of"},
		{[]string{"-", "-"}, "not both"},
	} {
		r := runDiag(t, nil, false, append([]string{"diff"}, c.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("%v: exit %d %q", c.args, r.code, r.stderr)
		}
	}
}

func TestDiffOutputFileAndFormats(t *testing.T) {
	out := filepath.Join(t.TempDir(), "diff.html")
	r := runDiag(t, nil, true, "diff", "-o", "html", "--output-file", out, seedBroken, seedFixed)
	page, err := os.ReadFile(out)
	if r.code != 3 || r.stdout != "" || err != nil || !strings.Contains(string(page), "<title>diag diff · winw1</title>") || !strings.Contains(string(page), "recreated") {
		t.Errorf("html: exit %d %q %v", r.code, r.stderr, err)
	}
	md := runDiag(t, nil, false, "diff", "-o", "markdown", seedBroken, seedFixed)
	if md.code != 3 || !strings.HasPrefix(md.stdout, "## diag diff: winw1") || !strings.Contains(md.stdout, "### Resolved findings") {
		t.Errorf("markdown: exit %d\n%s", md.code, md.stdout)
	}
	// On a terminal the table is coloured unless --color never.
	if r := runDiag(t, nil, true, "diff", seedBroken, seedFixed); !strings.Contains(r.stdout, "\x1b[") {
		t.Error("no colour on a terminal")
	}
	if r := runDiag(t, nil, true, "diff", "--color", "never", seedBroken, seedFixed); strings.Contains(r.stdout, "\x1b[") {
		t.Error("colour with --color never")
	}
}

// The capture rules count too: the seed's Linux node, whose capture shows
// SYNs never answered (CAP-02), against itself keeps CAP-02 persisting,
// and against a copy without the capture CAP-02 is resolved, as analyze
// would see it.
func TestDiffCaptureFindings(t *testing.T) {
	linux := "../../testdata/bundles/seed-linux-controlplane"
	d := diffJSON(t, 0, linux, linux)
	if !strings.Contains(ruleIDs(d.Findings.Persisting), "CAP-02") {
		t.Errorf("same bundle: persisting %q", ruleIDs(d.Findings.Persisting))
	}
	fixed := copyTree(t, linux)
	if err := os.RemoveAll(filepath.Join(fixed, "capture")); err != nil {
		t.Fatal(err)
	}
	d = diffJSON(t, 3, linux, fixed)
	if !strings.Contains(ruleIDs(d.Findings.Resolved), "CAP-02") || strings.Contains(ruleIDs(d.Findings.Persisting), "CAP-02") {
		t.Errorf("capture gone: resolved %q persisting %q", ruleIDs(d.Findings.Resolved), ruleIDs(d.Findings.Persisting))
	}
}
