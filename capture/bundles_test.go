package capture_test

import (
	"slices"
	"testing"

	"github.com/wincni/diag/capture"
	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/formats/formatstest"
	"github.com/wincni/diag/snapshot"
)

// AnalyzeBundles: the captures inside a bundle give their findings under
// the bundle's input and node, only for the selected rules, in the
// report's order; standard input has no captures to read.
func TestAnalyzeBundles(t *testing.T) {
	const path = "../testdata/bundles/seed-linux-controlplane"
	ids := func(fs []finding.Finding) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.ID)
		}
		return out
	}

	var grew []int
	var all finding.Result
	snaps := []*snapshot.Snapshot{formatstest.Load(t, path)}
	opts := capture.Options{FlowsGrew: func(n int) { grew = append(grew, n) }}
	if err := capture.AnalyzeBundles([]string{path}, snaps, []string{"node-a"}, func(string) bool { return true }, opts, &all); err != nil {
		t.Fatal(err)
	}
	if got := ids(all.Findings); !slices.Contains(got, "CAP-02") || !slices.Contains(got, "CAP-04") {
		t.Fatalf("findings %v, want CAP-02 and CAP-04 from the bundle's VXLAN capture", got)
	}
	for _, f := range all.Findings {
		if f.Input != path || f.Node != "node-a" {
			t.Errorf("%s: input %q node %q, want %q and node-a", f.ID, f.Input, f.Node, path)
		}
	}
	sorted := slices.Clone(all.Findings)
	finding.Sort(sorted)
	if !slices.Equal(ids(sorted), ids(all.Findings)) {
		t.Errorf("findings %v not in the report's order %v", ids(all.Findings), ids(sorted))
	}
	if len(grew) == 0 || grew[0] != 0 {
		t.Errorf("FlowsGrew calls %v, want a first call with 0 before the capture is read", grew)
	}

	var some finding.Result
	if err := capture.AnalyzeBundles([]string{path}, []*snapshot.Snapshot{formatstest.Load(t, path)}, []string{"node-a"}, func(id string) bool { return id != "CAP-02" }, capture.Options{}, &some); err != nil {
		t.Fatal(err)
	}
	if got := ids(some.Findings); slices.Contains(got, "CAP-02") || !slices.Contains(got, "CAP-04") {
		t.Errorf("with CAP-02 left out: findings %v", got)
	}

	var stdin finding.Result
	if err := capture.AnalyzeBundles([]string{"-"}, []*snapshot.Snapshot{formatstest.Load(t, path)}, []string{"node-a"}, func(string) bool { return true }, capture.Options{}, &stdin); err != nil || len(stdin.Findings)+len(stdin.Skipped) != 0 {
		t.Errorf("standard input: %v, %d findings", err, len(stdin.Findings))
	}
}
