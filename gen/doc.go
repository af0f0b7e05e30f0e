// Package gen writes synthetic inputs of realistic shape and size for tests
// and benchmarks: what a busy node's collectlogs.ps1 output looks like. It
// writes text only and imports nothing of diag, so any package's tests can
// use it.
//
// Imports: none.
package gen
