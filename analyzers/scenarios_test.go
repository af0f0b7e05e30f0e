package analyzers

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/formats/formatstest"
	"github.com/wincni/diag/snapshot"
)

// Each scenario is a bundle directory with an `expect` file, one line per
// expectation:
//
//	OVL-01 fail word word   a finding of that severity whose summary has every word
//	OVL-01 none             the rule ran and found nothing
//	OVL-01 skip             the rule was skipped
//	OVL-01 !word !word      no finding of the rule mentions any of the words
type expectation struct {
	id, outcome string
	words       []string
	line        int
}

func readExpectations(t *testing.T, path string) []expectation {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []expectation
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		e := expectation{id: fields[0], line: n}
		if len(fields) > 1 && !strings.HasPrefix(fields[1], "!") {
			e.outcome, fields = fields[1], fields[2:]
		} else {
			e.outcome, fields = "not", fields[1:]
		}
		e.words = fields
		out = append(out, e)
	}
	return out
}

func checkExpectations(t *testing.T, res finding.Result, exps []expectation, coverage map[string]map[string]bool) {
	for _, e := range exps {
		var mine []finding.Finding
		for _, f := range res.Findings {
			if f.ID == e.id {
				mine = append(mine, f)
			}
		}
		skipped := false
		for _, s := range res.Skipped {
			skipped = skipped || s.ID == e.id
		}
		if _, ok := Lookup(e.id); !ok {
			t.Errorf("line %d: no rule %s", e.line, e.id)
			continue
		}
		switch e.outcome {
		case "none":
			if len(mine) > 0 || skipped {
				t.Errorf("line %d: %s must run and stay silent; findings %v, skipped %v", e.line, e.id, summaries(mine), skipped)
			}
			coverage[e.id]["silent"] = true
		case "skip":
			if !skipped {
				t.Errorf("line %d: %s must be skipped; findings %v", e.line, e.id, summaries(mine))
			}
		case "not":
			for _, f := range mine {
				for _, w := range e.words {
					if strings.Contains(f.Summary, strings.TrimPrefix(w, "!")) {
						t.Errorf("line %d: %s mentions %s: %s", e.line, e.id, w, f.Summary)
					}
				}
			}
		default:
			sev, err := finding.ParseSeverity(e.outcome)
			if err != nil {
				t.Fatalf("line %d: %v", e.line, err)
			}
			found := false
			for _, f := range mine {
				all := f.Severity == sev
				for _, w := range e.words {
					all = all && strings.Contains(f.Summary, w)
				}
				found = found || all
			}
			if !found {
				t.Errorf("line %d: no %s %s finding with %q; got %v (skipped %v)", e.line, e.id, sev, e.words, summaries(mine), skipped)
			}
			coverage[e.id]["fires"] = true
		}
		for _, f := range mine {
			if len(f.Evidence) == 0 || f.Remediation == "" || f.Node == "" {
				t.Errorf("%s finding lacks evidence, remediation or node: %+v", e.id, f)
			}
		}
	}
}

func summaries(fs []finding.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Severity.String()+": "+f.Summary)
	}
	return out
}

func TestScenarios(t *testing.T) {
	coverage := map[string]map[string]bool{}
	for _, r := range Rules() {
		coverage[r.ID] = map[string]bool{}
	}
	dirs, _ := filepath.Glob("testdata/scenarios/*")
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			s := formatstest.Load(t, dir)
			res := Run([]*snapshot.Snapshot{s}, Selection{})
			checkExpectations(t, res, readExpectations(t, filepath.Join(dir, "expect")), coverage)
		})
	}
	clusters, _ := filepath.Glob("testdata/clusters/*")
	for _, dir := range clusters {
		t.Run("cluster/"+filepath.Base(dir), func(t *testing.T) {
			var snaps []*snapshot.Snapshot
			for _, b := range clusterBundles(t, dir) {
				snaps = append(snaps, formatstest.Load(t, b))
			}
			res := Run(snaps, Selection{})
			checkExpectations(t, res, readExpectations(t, filepath.Join(dir, "expect")), coverage)
		})
	}
	for id, c := range coverage {
		if !c["fires"] || !c["silent"] {
			t.Errorf("rule %s needs a scenario where it fires and one where it stays silent (have %v)", id, c)
		}
	}
}

// The seed case, end to end through the bundle directories of testdata/.
func TestSeedBundles(t *testing.T) {
	broken := Run([]*snapshot.Snapshot{formatstest.Load(t, "../testdata/bundles/seed-broken")}, Selection{})
	if len(broken.Findings) != 1 {
		t.Fatalf("seed-broken: %v", summaries(broken.Findings))
	}
	f := broken.Findings[0]
	for _, want := range []string{"10.0.2.15", "10.20.30.10", "'Ethernet 2' (10.20.30.11)", "Vagrant"} {
		if !strings.Contains(f.Summary, want) {
			t.Errorf("OVL-01 summary lacks %q: %s", want, f.Summary)
		}
	}
	if f.ID != "OVL-01" || f.Severity != finding.Fail || f.Node != "winw1" || !strings.Contains(f.Remediation, `VXLAN_ADAPTER = "Ethernet 2"`) {
		t.Errorf("finding: %+v", f)
	}
	fixed := Run([]*snapshot.Snapshot{formatstest.Load(t, "../testdata/bundles/seed-fixed")}, Selection{})
	// The overlay is fixed. What remains is the Vagrant topology's own
	// limit: the overlay adapter has no default gateway, so pods reach the
	// overlay but not the internet (sig-windows-dev-tools#276). Every rule
	// finds its input in the bundle (the flannel rules are not applicable
	// to this Calico node, so they are not skipped either), but those
	// whose inputs this older bundle has not: HOST-10 (its firewall.json
	// is from before the collector gathered the TCP rules, and says so by
	// not listing them), LOG-01 (no component logs), EP-02, EP-03 and LOG-02 (no
	// k8s/pods.json).
	var skipped []string
	for _, sk := range fixed.Skipped {
		skipped = append(skipped, sk.ID)
	}
	if len(fixed.Findings) != 1 || fixed.Findings[0].ID != "HOST-05" || strings.Join(skipped, " ") != "EP-02 EP-03 HOST-10 LOG-01 LOG-02" {
		t.Errorf("seed-fixed: %v skipped %v", summaries(fixed.Findings), fixed.Skipped)
	}
}

// clusterBundles lists the bundles of a cluster scenario: the paths in its
// bundles file (relative to it), else its subdirectories.
func clusterBundles(t *testing.T, dir string) []string {
	data, err := os.ReadFile(filepath.Join(dir, "bundles"))
	if err != nil {
		var out []string
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if e.IsDir() {
				out = append(out, filepath.Join(dir, e.Name()))
			}
		}
		return out
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		out = append(out, filepath.Join(dir, strings.TrimSpace(line)))
	}
	return out
}

// The healthy fixtures of each kind (a flannel VXLAN node, a Calico VXLAN
// node, an l2bridge node) raise no fail and no warn. flannel-healthy is a
// small fixture; the complete flannel VXLAN node, with every input and no
// rule skipped, is the generated one (TestGeneratedClusterNodeIsHealthy).
// Every scenario named *-healthy is a node as the upstream components leave
// it (flannel, Calico, kube-proxy winkernel; default and common non-default
// settings): no rule may warn or fail on it.
func TestHealthyNodes(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join("testdata", "scenarios", "*-healthy"))
	if len(dirs) < 3 {
		t.Fatalf("only %d healthy fixtures", len(dirs))
	}
	for _, dir := range dirs {
		dir = filepath.Base(dir)
		res := Run([]*snapshot.Snapshot{formatstest.Load(t, filepath.Join("testdata", "scenarios", dir))}, Selection{})
		for _, f := range res.Findings {
			if f.Severity >= finding.Warn {
				t.Errorf("%s: %s %s: %s", dir, f.Severity, f.ID, f.Summary)
			}
		}
		t.Logf("%s: %d findings below warn, %d rules skipped", dir, len(res.Findings), len(res.Skipped))
	}
}
