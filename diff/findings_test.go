package diff

import (
	"testing"

	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/formats/formatstest"
)

func ids(fs []finding.Finding) []string {
	out := []string{}
	for _, f := range fs {
		out = append(out, f.ID)
	}
	return out
}

// The ManagementIP moved to the NAT adapter's 10.0.2.15 makes OVL-01 new;
// the way back resolves it.
func TestFindingNewAndResolved(t *testing.T) {
	broken := formatstest.CopyBundle(t, healthy)
	formatstest.EditJSON(t, broken, "hns/v1/networks.json", func(ns []map[string]any) []map[string]any {
		for _, n := range ns {
			if n["Name"] == "Calico" {
				n["ManagementIP"] = "10.0.2.15"
			}
		}
		return ns
	})
	f := Analyze(formatstest.Load(t, healthy), formatstest.Load(t, broken))
	if !contains(ids(f.New), "OVL-01") || len(f.Resolved) != 0 || len(f.Persisting) != 0 {
		t.Errorf("healthy → broken: new %v resolved %v persisting %v", ids(f.New), ids(f.Resolved), ids(f.Persisting))
	}
	f = Analyze(formatstest.Load(t, broken), formatstest.Load(t, healthy))
	if !contains(ids(f.Resolved), "OVL-01") || len(f.New) != 0 || len(f.Persisting) != 0 {
		t.Errorf("broken → healthy: new %v resolved %v persisting %v", ids(f.New), ids(f.Resolved), ids(f.Persisting))
	}
	// Still broken after an HNS restart: every GUID changed, the problem
	// did not.
	restarted := formatstest.CopyBundle(t, broken)
	recreateCalico(t, restarted, "0F1E2D3C-4B5A-4978-8695-A4B3C2D1E0F9")
	f = Analyze(formatstest.Load(t, broken), formatstest.Load(t, restarted))
	if !contains(ids(f.Persisting), "OVL-01") || contains(ids(f.New), "OVL-01") || contains(ids(f.Resolved), "OVL-01") {
		t.Errorf("restarted: new %v resolved %v persisting %v", ids(f.New), ids(f.Resolved), ids(f.Persisting))
	}
	same := Analyze(formatstest.Load(t, broken), formatstest.Load(t, formatstest.CopyBundle(t, broken)))
	if same.New == nil || same.Resolved == nil || len(same.New)+len(same.Resolved) != 0 || len(same.Persisting) == 0 {
		t.Errorf("identical: %+v", same)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestSplitFindingsMatching(t *testing.T) {
	old := []finding.Finding{
		{ID: "OVL-01", Severity: finding.Fail, Subjects: []string{"network:Calico", "address:10.0.2.15"}},
		// GUID-only subjects and summaries: the IDs change on a restart.
		{ID: "EP-01", Severity: finding.Warn, Subjects: []string{"endpoint:4C2B8E17-9D3A-4F61-8B5C-0E7D6A9F2C14"}, Summary: "endpoint 4C2B8E17-9D3A-4F61-8B5C-0E7D6A9F2C14 is stale"},
		{ID: "SVC-03", Severity: finding.Fail, Summary: "no load balancer for 10.96.0.10"},
		{ID: "SVC-03", Severity: finding.Fail, Summary: "no load balancer for 10.96.0.1"},
	}
	new := []finding.Finding{
		{ID: "OVL-01", Severity: finding.Fail, Subjects: []string{"address:10.0.2.15", "network:Calico"}}, // order differs
		{ID: "EP-01", Severity: finding.Warn, Subjects: []string{"endpoint:26DCB6EE-F66B-4AB8-98D2-8223F769894A"}, Summary: "endpoint 26dcb6ee-f66b-4ab8-98d2-8223f769894a is stale"},
		{ID: "SVC-03", Severity: finding.Fail, Summary: "no load balancer for 10.96.0.1"},
		{ID: "HOST-05", Severity: finding.Fail, Subjects: []string{"network:Calico"}},
	}
	s := SplitFindings(old, new)
	if got := ids(s.Persisting); len(got) != 3 || !contains(got, "OVL-01") || !contains(got, "EP-01") || !contains(got, "SVC-03") {
		t.Errorf("persisting %v", got)
	}
	if len(s.New) != 1 || s.New[0].ID != "HOST-05" {
		t.Errorf("new %v", ids(s.New))
	}
	if len(s.Resolved) != 1 || s.Resolved[0].Summary != "no load balancer for 10.96.0.10" {
		t.Errorf("resolved %+v", s.Resolved)
	}
	empty := SplitFindings(nil, nil)
	if empty.New == nil || empty.Resolved == nil || empty.Persisting == nil {
		t.Errorf("nil slices: %+v", empty)
	}
}

// A finding whose severity changed is new, the old one resolved: an info
// "network non-persistent" that became a fail "network missing" must not
// read as persisting.
func TestSplitFindingsSeverityChangeIsNotPersistence(t *testing.T) {
	old := []finding.Finding{{ID: "OVL-09", Severity: finding.Info, Summary: "network Calico is not persistent", Subjects: []string{"network:Calico"}}}
	nf := finding.Finding{ID: "OVL-09", Severity: finding.Fail, Summary: "network Calico, which kube-proxy names, is missing", Subjects: []string{"network:Calico"}}
	f := SplitFindings(old, []finding.Finding{nf})
	if len(f.Persisting) != 0 || len(f.New) != 1 || f.New[0].Severity != finding.Fail || len(f.Resolved) != 1 || f.Resolved[0].Severity != finding.Info {
		t.Errorf("new %v resolved %v persisting %v", ids(f.New), ids(f.Resolved), ids(f.Persisting))
	}
	same := SplitFindings(old, []finding.Finding{old[0]})
	if len(same.Persisting) != 1 {
		t.Errorf("unchanged: %+v", same)
	}
}
