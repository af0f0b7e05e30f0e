// Package cluster collects bundles from many nodes through Kubernetes: for
// each selected node it runs diag collect in a pod pinned to that node
// (a HostProcess pod on Windows) and streams the bundle back over the pod's
// exec stdout, framed and checksummed (stream.go), with bounded
// concurrency, a deadline per node, and every pod it made removed.
//
// Imports: bundle.
package cluster
