// Package golden compares what a test produced with the file that holds
// what it must produce, and rewrites the file under `go test -update`:
// one -update flag and one compare loop for every golden file of the
// repository (reports, snapshots, docs/rules.md, sample captures). It is
// imported by tests only. Commands reads the commands of a document's
// fenced block, for the tests that run what a document shows.
//
// Imports: none.
package golden
