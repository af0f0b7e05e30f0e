// Package clustertest is an API server for testing cluster collections:
// nodes, events, pods and exec over WebSocket (v5.channel.k8s.io through
// the wsstream package the kubelet's streaming server uses), with nodes
// that misbehave on request.
//
// Imports: bundle, manifest.
package clustertest
