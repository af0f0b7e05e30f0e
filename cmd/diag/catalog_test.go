package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/wincni/diag/catalog"
)

// Every mode of the failure catalog is a rule diag runs (on bundles or
// captures) or is listed as not checked, with the data it would need.
func TestCatalogCovered(t *testing.T) {
	data, err := os.ReadFile("../../../shared/reference/failure-modes.md")
	if err != nil {
		t.Skipf("the catalog is not beside the project: %v", err)
	}
	ids := regexp.MustCompile(`(?m)^#### ([A-Z]+-\d+) `).FindAllStringSubmatch(string(data), -1)
	if len(ids) < 40 {
		t.Fatalf("found only %d modes in the catalog", len(ids))
	}
	for _, m := range ids {
		r, ok := lookupRule(m[1])
		if !ok {
			t.Errorf("catalog mode %s is neither a rule nor listed as not checked", m[1])
			continue
		}
		if r.Unchecked && r.Needs == "" {
			t.Errorf("%s is not checked and does not say what it would need", m[1])
		}
	}
}

// Every rule diag checks, on bundles or captures, says what upstream
// behaviour it is grounded in, which false-positive guards it has and
// where it is declared; every entry is one line.
func TestCatalogGrounding(t *testing.T) {
	rules := catalog.Rules()
	if len(rules) < 60 {
		t.Fatalf("the catalog holds %d rules: the capture or analyzers package did not declare theirs", len(rules))
	}
	for _, r := range rules {
		if len(r.Upstream) == 0 {
			t.Errorf("%s: no Upstream entry (component and file the rule is grounded in)", r.ID)
		}
		if len(r.Guards) == 0 {
			t.Errorf("%s: no Guards entry (false-positive guards)", r.ID)
		}
		if !strings.HasPrefix(r.File, "analyzers/") && !strings.HasPrefix(r.File, "capture/") {
			t.Errorf("%s: declared in %q", r.ID, r.File)
		}
		for _, s := range append(append([]string{}, r.Upstream...), r.Guards...) {
			if strings.TrimSpace(s) == "" || strings.Contains(s, "\n") {
				t.Errorf("%s: empty or multi-line grounding entry %q", r.ID, s)
			}
		}
	}
	for _, r := range catalog.Unchecked() {
		if r.Needs == "" || r.File == "" {
			t.Errorf("%s: not checked, but says neither what it would need nor where it is declared", r.ID)
		}
	}
}

// The file a rule names (the file of the function its declaration passes to
// catalog.Declare: its check) is the one that declares it: its source holds
// the rule's ID.
func TestCatalogFileDeclares(t *testing.T) {
	all := append(catalog.Rules(), catalog.Unchecked()...)
	src := map[string]string{}
	for _, r := range all {
		text, ok := src[r.File]
		if !ok {
			data, err := os.ReadFile("../../" + r.File)
			if err != nil {
				t.Errorf("%s: declared in %q: %v", r.ID, r.File, err)
				continue
			}
			text = string(data)
			src[r.File] = text
		}
		if !regexp.MustCompile(`\bID:\s+"` + r.ID + `"`).MatchString(text) {
			t.Errorf("%s: named as declared in %s, which does not hold ID: %q", r.ID, r.File, r.ID)
		}
	}
}
