// Package archtest holds the test of diag's import graph: each package's
// comment says which of diag's packages it may import ("Imports: bundle,
// snapshot."), and the test holds every non-test file of every package,
// for every GOOS, to it. Data flows one way (collectors → bundle → formats
// → snapshot → analyzers → finding → report; capture, diff, anonymize and
// cluster beside it), so a package that reaches back fails here, not in a
// review. See docs/architecture.md.
//
// Imports: none.
package archtest
