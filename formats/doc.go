// Package formats reads what people hand over about a node and builds its
// snapshot: diag bundles (zip or folder), collectlogs output, HNS v1/v2
// JSON, Get-Hns* Format-List and table text as pasted into tickets,
// hnsdiag, vfpctrl, ipconfig and route print, Linux iproute2 JSON,
// Kubernetes lists, kube-proxy and CNI configuration, logs. It tells an
// input's kind apart, expands folders of bundles, and says what it could
// not read (notes) rather than guessing.
//
// Imports: bundle, manifest, snapshot.
package formats
