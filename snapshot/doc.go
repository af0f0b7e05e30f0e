// Package snapshot is the normalized model of one node's networking state
// (Network, Endpoint, LoadBalancer, RemoteSubnetRoute, host adapters and
// routes, Kubernetes objects) and what derives from it (node facts,
// feature answers). It reads no file: formats builds it, and rules only
// ever see it.
//
// Imports: manifest (what the input says about its collection).
package snapshot
