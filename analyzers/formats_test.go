package analyzers

import (
	"strings"
	"testing"

	"github.com/wincni/diag/formats/formatstest"
	"github.com/wincni/diag/snapshot"
)

type outcome struct{ id, severity, summary, remediation string }

func outcomes(t *testing.T, dir string) []outcome {
	res := Run([]*snapshot.Snapshot{formatstest.Load(t, dir)}, Selection{})
	var out []outcome
	for _, f := range res.Findings {
		out = append(out, outcome{f.ID, f.Severity.String(), f.Summary, f.Remediation})
	}
	return out
}

// The same node as a collectlogs.ps1 folder and as a diag bundle (holding
// the same data: no Kubernetes context) gives the same findings.
func TestCollectlogsMatchesBundle(t *testing.T) {
	bundleDir := formatstest.CopyBundle(t, "../testdata/bundles/seed-broken", "k8s", "config")
	fromBundle := outcomes(t, bundleDir)
	fromCollectlogs := outcomes(t, "../testdata/collectlogs/seed-broken")
	if len(fromBundle) == 0 {
		t.Fatal("no findings from the bundle")
	}
	if len(fromBundle) != len(fromCollectlogs) {
		t.Fatalf("bundle %v\ncollectlogs %v", fromBundle, fromCollectlogs)
	}
	for i := range fromBundle {
		if fromBundle[i] != fromCollectlogs[i] {
			t.Errorf("finding %d differs:\nbundle      %+v\ncollectlogs %+v", i, fromBundle[i], fromCollectlogs[i])
		}
	}
}

// Pasted Get-HNSNetwork text of the seed's broken node goes through the same
// rule as the bundle.
func TestPastedSeedText(t *testing.T) {
	got := outcomes(t, "../testdata/text/seed-broken-get-hnsnetwork.txt")
	if len(got) != 1 || got[0].id != "OVL-01" || got[0].severity != "fail" || !strings.Contains(got[0].summary, "10.0.2.15") || !strings.Contains(got[0].summary, "10.20.30.10") {
		t.Errorf("%+v", got)
	}
	if fixed := outcomes(t, "../testdata/text/seed-fixed-get-hnsnetwork.txt"); len(fixed) != 0 {
		t.Errorf("fixed paste: %+v", fixed)
	}
}
