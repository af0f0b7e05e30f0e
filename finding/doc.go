// Package finding is the result model every producer of findings (the
// bundle rules, the capture decoder) and every report share: Finding,
// Evidence, Severity, the order a report shows them in, causes first, and
// Result, what an analysis produced (findings, skipped rules, notes, and
// the coverage of each input).
//
// Imports: none.
package finding
