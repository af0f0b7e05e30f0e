package analyzers

import (
	"testing"

	"github.com/wincni/diag/finding"
)

// At one severity the cause on a node comes before what it explains
// across nodes and in the traffic.
func TestSortCauseBeforeSymptoms(t *testing.T) {
	fs := []finding.Finding{
		{ID: "CAP-02", Severity: finding.Fail, Node: "controlplane"},
		{ID: "XN-03", Severity: finding.Fail, Node: "cluster"},
		{ID: "OVL-01", Severity: finding.Fail, Node: "winw1"},
		{ID: "OVL-05", Severity: finding.Warn, Node: "winw1"},
	}
	SortFindings(fs)
	got := ""
	for _, f := range fs {
		got += f.ID + " "
	}
	if got != "OVL-01 XN-03 CAP-02 OVL-05 " {
		t.Errorf("%s", got)
	}
}
