// Package analyzers is the rule engine and the rules. Rules take snapshots
// (never files or the OS) and return findings; the engine adds identity,
// decides in one place whether a rule applies to a node, skips rules whose
// inputs are missing and contains rules that crash. Each rule's declaration
// (register) carries its documentation into the catalog.
//
// Imports: catalog, finding, snapshot.
package analyzers
