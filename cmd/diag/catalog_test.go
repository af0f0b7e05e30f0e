package main

import (
	"os"
	"regexp"
	"testing"
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
