package finding

import (
	"testing"
)

func TestLinkCauses(t *testing.T) {
	ovl := Finding{ID: "OVL-01", Severity: Fail, Node: "winw1", Subjects: []string{"network:Calico", "address:10.0.2.15"}}
	info := Finding{ID: "OVL-09", Severity: Info, Node: "winw2", Subjects: []string{"address:10.0.3.9"}}
	xn := Finding{ID: "XN-03", Severity: Fail, Node: "cluster", Subjects: []string{"address:10.0.2.15", "node:winw1"}}
	capOther := Finding{ID: "CAP-02", Severity: Fail, Node: "lin1", Subjects: []string{"address:10.9.9.9"}}
	capInfo := Finding{ID: "CAP-05", Severity: Warn, Node: "lin1", Subjects: []string{"address:10.0.3.9"}}
	// Sharing a network's name or a node is no cause: many findings do.
	xnName := Finding{ID: "XN-02", Severity: Warn, Node: "cluster", Subjects: []string{"network:Calico", "node:winw1"}}
	fs := []Finding{ovl, xn, xnName, capOther, info, capInfo}
	Sort(fs)
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
			if refs := Explains(f, fs); JoinRefs(refs) != "XN-03 on cluster" {
				t.Errorf("OVL-01 explains %v", refs)
			}
		}
	}
}

// At one severity the cause on a node comes before what it explains
// across nodes and in the traffic.
func TestSortCauseBeforeSymptoms(t *testing.T) {
	fs := []Finding{
		{ID: "CAP-02", Severity: Fail, Node: "controlplane"},
		{ID: "XN-03", Severity: Fail, Node: "cluster"},
		{ID: "OVL-01", Severity: Fail, Node: "winw1"},
		{ID: "OVL-05", Severity: Warn, Node: "winw1"},
	}
	Sort(fs)
	got := ""
	for _, f := range fs {
		got += f.ID + " "
	}
	if got != "OVL-01 XN-03 CAP-02 OVL-05 " {
		t.Errorf("%s", got)
	}
}
