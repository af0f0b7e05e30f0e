package analyzers

import (
	"path"
	"strings"
	"testing"

	"github.com/wincni/diag/catalog"
)

// A rule lives in a file named after its family (OVL-04 in ovl.go or
// ovl_*.go), so that ls analyzers reads like diag rules and a rule is found
// from its ID.
func TestRuleFilesNameTheirFamily(t *testing.T) {
	n := 0
	for _, e := range append(catalog.Rules(), catalog.Unchecked()...) {
		if !strings.HasPrefix(e.File, "analyzers/") {
			continue // capture's rules, in capture/rules.go
		}
		n++
		family, _, _ := strings.Cut(strings.ToLower(e.ID), "-")
		base := path.Base(e.File)
		if base != family+".go" && !strings.HasPrefix(base, family+"_") {
			t.Errorf("%s is declared in %s: a file named %s.go or %s_*.go", e.ID, e.File, family, family)
		}
	}
	if n < 50 {
		t.Errorf("only %d rules declared in analyzers/", n)
	}
}
