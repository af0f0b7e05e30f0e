// Package finding is the result model every producer of findings (the
// bundle rules, the capture decoder) and every report share: Finding,
// Evidence, Severity, and the order a report shows them in, causes first.
//
// Imports: none.
package finding
