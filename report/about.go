package report

import (
	"strings"

	"github.com/wincni/diag/analyzers"
	"github.com/wincni/diag/capture"
)

// ruleAbout is what a rule checks and why it matters, from its own
// declaration: a report read in a ticket carries its explanation rather
// than a link that may not resolve where it is read.
func ruleAbout(id string) string {
	if r, ok := analyzers.Lookup(id); ok {
		return strings.TrimSpace(r.Checks + " " + r.Why)
	}
	for _, r := range capture.Rules {
		if r.ID == id {
			return strings.TrimSpace(r.Checks + " " + r.Why)
		}
	}
	return ""
}
