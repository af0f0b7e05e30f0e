// Package diff compares two snapshots of one node, before and after ("it
// worked yesterday"), on the model rather than on the raw files: a network
// recreated by an HNS restart is one change, not a deletion and a creation,
// and two inputs of different formats (collectlogs yesterday, a diag bundle
// today) compare like two bundles. It never prints; report renders it.
//
// Imports: analyzers (the rules run on both sides), finding, snapshot.
package diff
