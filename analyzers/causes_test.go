package analyzers

import (
	"testing"

	"github.com/wincni/diag/finding"
)

func TestLinkCauses(t *testing.T) {
	ovl := finding.Finding{ID: "OVL-01", Severity: finding.Fail, Node: "winw1", Subjects: []string{"network:Calico", "address:10.0.2.15"}}
	info := finding.Finding{ID: "OVL-09", Severity: finding.Info, Node: "winw2", Subjects: []string{"address:10.0.3.9"}}
	xn := finding.Finding{ID: "XN-03", Severity: finding.Fail, Node: "cluster", Subjects: []string{"address:10.0.2.15", "node:winw1"}}
	capOther := finding.Finding{ID: "CAP-02", Severity: finding.Fail, Node: "lin1", Subjects: []string{"address:10.9.9.9"}}
	capInfo := finding.Finding{ID: "CAP-05", Severity: finding.Warn, Node: "lin1", Subjects: []string{"address:10.0.3.9"}}
	// Sharing a network's name or a node is no cause: many findings do.
	xnName := finding.Finding{ID: "XN-02", Severity: finding.Warn, Node: "cluster", Subjects: []string{"network:Calico", "node:winw1"}}
	fs := []finding.Finding{ovl, xn, xnName, capOther, info, capInfo}
	SortFindings(fs)
	LinkCauses(fs)
	got := map[string]string{}
	for _, f := range fs {
		if f.Cause != nil {
			got[f.ID] = f.Cause.String()
		}
	}
	if len(got) != 1 || got["XN-03"] != "OVL-01 on winw1" {
		t.Errorf("causes %v, want only XN-03 explained by OVL-01 on winw1", got)
	}
	for _, f := range fs {
		if f.ID == "OVL-01" {
			if refs := finding.Explains(f, fs); finding.JoinRefs(refs) != "XN-03 on cluster" {
				t.Errorf("OVL-01 explains %v", refs)
			}
		}
	}
}
