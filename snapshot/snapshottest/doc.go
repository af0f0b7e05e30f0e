// Package snapshottest holds what the tests of the packages that build
// snapshots share. It is imported by tests only.
//
// Imports: snapshot.
package snapshottest
