// Package analyzers is the rule engine and the rules. Rules take snapshots
// (never files or the OS) and return findings; the engine adds identity,
// decides in one place whether a rule applies to a node, skips rules whose
// inputs are missing and contains rules that crash. Each rule's declaration
// (register) carries its documentation into the catalog. A rule lives in a
// file named after its family (OVL-04 in ovl.go or ovl_*.go), so that the
// listing of this folder reads like diag rules; the files without a family
// prefix hold what several rules share (engine, indexes, evidence).
//
// Imports: catalog, finding, snapshot.
package analyzers
