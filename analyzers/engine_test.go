package analyzers

import (
	"strings"
	"testing"

	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/snapshot"
)

// withRules swaps the registry for the duration of a test.
func withRules(t *testing.T, rules ...*Rule) {
	saved := registry
	registry = map[string]*Rule{}
	// Straight into the engine: the catalog keeps the real rules' documents.
	for _, r := range rules {
		registry[r.ID] = r
	}
	t.Cleanup(func() { registry = saved })
}

func TestEngineContainsPanicsAndSkips(t *testing.T) {
	withRules(t,
		&Rule{ID: "TST-01", Title: "panics", Severity: finding.Fail, Check: func(*snapshot.Snapshot) ([]Issue, error) {
			var m map[string]int
			//lint:ignore SA5000 a deliberate nil map write: a real runtime panic
			m["x"]++ // nil map write: a real panic
			return nil, nil
		}},
		&Rule{ID: "TST-02", Title: "needs nodes", Severity: finding.Fail, Needs: []snapshot.Input{snapshot.InputKubeNodes},
			Check: func(*snapshot.Snapshot) ([]Issue, error) { t.Error("ran without its inputs"); return nil, nil }},
		&Rule{ID: "TST-03", Title: "fires", Severity: finding.Warn, Fix: "do the thing",
			Check: func(*snapshot.Snapshot) ([]Issue, error) { return []Issue{{Summary: "x is wrong"}}, nil }},
		&Rule{ID: "TST-04", Title: "skips itself", Severity: finding.Warn,
			Check: func(*snapshot.Snapshot) ([]Issue, error) { return nil, Skip("no %s", "capture") }},
	)
	s := &snapshot.Snapshot{Source: "b.zip", Inputs: map[snapshot.Input]string{}}
	res := Run([]*snapshot.Snapshot{s}, Selection{})
	if len(res.Findings) != 2 {
		t.Fatalf("findings: %+v", res.Findings)
	}
	crash, fired := res.Findings[0], res.Findings[1]
	if crash.ID != "TST-01" || crash.Severity != finding.Error || !strings.Contains(crash.Summary, "panic") {
		t.Errorf("crash finding: %+v", crash)
	}
	if fired.ID != "TST-03" || fired.Severity != finding.Warn || fired.Remediation != "do the thing" || fired.Node != "b.zip" {
		t.Errorf("finding: %+v", fired)
	}
	if len(res.Skipped) != 2 || res.Skipped[0].Reason != "no Kubernetes Nodes (k8s/nodes.json)" || res.Skipped[1].Reason != "no capture" {
		t.Errorf("skipped: %+v", res.Skipped)
	}
}

func TestSelection(t *testing.T) {
	withRules(t,
		&Rule{ID: "OVL-01", Check: func(*snapshot.Snapshot) ([]Issue, error) { return []Issue{{Summary: "a"}}, nil }},
		&Rule{ID: "OVL-02", Check: func(*snapshot.Snapshot) ([]Issue, error) { return []Issue{{Summary: "b"}}, nil }},
		&Rule{ID: "SVC-01", Check: func(*snapshot.Snapshot) ([]Issue, error) { return []Issue{{Summary: "c"}}, nil }},
	)
	s := &snapshot.Snapshot{Inputs: map[snapshot.Input]string{}}
	ids := func(sel Selection) string {
		var out []string
		for _, f := range Run([]*snapshot.Snapshot{s}, sel).Findings {
			out = append(out, f.ID)
		}
		return strings.Join(out, ",")
	}
	for _, c := range []struct {
		sel  Selection
		want string
	}{
		{Selection{}, "OVL-01,OVL-02,SVC-01"},
		{Selection{Only: []string{"ovl"}}, "OVL-01,OVL-02"},
		{Selection{Only: []string{"OVL-02", "SVC"}}, "OVL-02,SVC-01"},
		{Selection{Skip: []string{"OVL-01"}}, "OVL-02,SVC-01"},
		{Selection{Only: []string{"OVL"}, Skip: []string{"ovl-02"}}, "OVL-01"},
	} {
		if got := ids(c.sel); got != c.want {
			t.Errorf("%+v: %s, want %s", c.sel, got, c.want)
		}
	}
	if err := (Selection{Only: []string{"OVL-99"}}).Validate(); err == nil {
		t.Error("unknown rule accepted")
	}
	if err := (Selection{Skip: []string{"OV"}}).Validate(); err == nil {
		t.Error("partial family prefix accepted")
	}
}

func TestRegisteredRulesAreDocumented(t *testing.T) {
	for _, r := range Rules() {
		if r.Title == "" || r.Checks == "" || r.Why == "" || r.Fix == "" || len(r.Sources) == 0 || r.Check == nil && r.CheckCluster == nil {
			t.Errorf("rule %s is missing documentation or a check", r.ID)
		}
		if r.Severity != finding.Fail && r.Severity != finding.Warn && r.Severity != finding.Info {
			t.Errorf("rule %s has severity %v", r.ID, r.Severity)
		}
	}
}
