// Package formatstest reads the repository's fixture bundles into
// snapshots and copies them to edit, for the tests of the packages that
// judge, compare and render snapshots. It is imported by tests only.
//
// Imports: bundle, formats, snapshot.
package formatstest
