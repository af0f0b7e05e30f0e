// Package deploytest reads the manifests of deploy/ (the collect
// DaemonSet, the monitor's, the Prometheus rules) into the few fields their
// tests hold: RBAC rules, the pod's host settings, the container's command,
// environment and probes, alerting rules. It is imported by tests only.
//
// Imports: none.
package deploytest
