package report

import "github.com/wincni/diag/catalog"

// ruleAbout is what a rule checks and why it matters, from its own
// declaration: a report read in a ticket carries its explanation rather
// than a link that may not resolve where it is read.
func ruleAbout(id string) string { return catalog.About(id) }
