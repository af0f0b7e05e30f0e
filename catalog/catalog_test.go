package catalog

import (
	"strings"
	"testing"

	"github.com/wincni/diag/finding"
)

func TestDeclare(t *testing.T) {
	Declare(Entry{ID: "TST-01", Title: "a test rule", Severity: finding.Warn, Checks: "c", Why: "w"}, TestDeclare)
	Declare(Entry{ID: "TST-02", Title: "not checked", Unchecked: true, Needs: "data"}, TestDeclare)
	e, ok := Lookup(" tst-01 ")
	if !ok || e.File != "catalog/catalog_test.go" {
		t.Fatalf("Lookup = %+v, %v; want TST-01 declared in catalog/catalog_test.go", e, ok)
	}
	if got := About("TST-01"); got != "c w" {
		t.Errorf("About = %q", got)
	}
	if fam := Family("tst"); len(fam) != 1 || fam[0].ID != "TST-01" {
		t.Errorf("Family(tst) = %v: the unchecked mode belongs to Unchecked only", fam)
	}
	if u := Unchecked(); len(u) != 1 || u[0].ID != "TST-02" {
		t.Errorf("Unchecked = %v", u)
	}
	defer func() {
		if p := recover(); p == nil || !strings.Contains(p.(string), "TST-01 declared twice") {
			t.Errorf("a second TST-01: %v", p)
		}
	}()
	Declare(Entry{ID: "TST-01"}, nil)
}

// A finding takes from its rule what its check did not say, and keeps what
// it did.
func TestComplete(t *testing.T) {
	e := Entry{ID: "OVL-02", Title: "Missing route", Severity: finding.Fail, Fix: "restart flanneld"}
	f := e.Complete(finding.Finding{Summary: "no route"})
	if f.ID != "OVL-02" || f.Title != "Missing route" || f.Severity != finding.Fail || f.Remediation != "restart flanneld" ||
		f.Evidence == nil || f.DocsURL != DocsBase+"ovl-02" {
		t.Errorf("defaults: %+v", f)
	}
	f = e.Complete(finding.Finding{Severity: finding.Warn, Remediation: "wait", Evidence: []finding.Evidence{{Field: "x"}}})
	if f.Severity != finding.Warn || f.Remediation != "wait" || len(f.Evidence) != 1 {
		t.Errorf("the check's own: %+v", f)
	}
}
