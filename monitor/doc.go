// Package monitor is diag monitor: on a node, every interval, it takes the
// state the per-node rules need, runs them and publishes what it found as
// Prometheus metrics, as Kubernetes Events on the Node (when a finding
// appears and when it resolves) and, when a new fail appears, as a full
// redacted bundle of that moment (the flight recorder).
//
// A round takes its state from a Source: the live node through the
// collectors (the same code as diag collect, restricted to what is cheap)
// or saved bundles, one per round (--replay). The state goes the way
// analyze takes it: bundle → formats → snapshot → analyzers.RunNode →
// findings. Nothing here writes to HNS or to the node: like collect, the
// monitor reaches the node only through the collectors' query interfaces.
//
// Every outside dependency can be missing or fail (HNS, the API server, the
// record directory): a round then does what it can, the metrics and
// /readyz say what is missing, and the loop goes on.
//
// Imports: analyzers, bundle, cluster (the kubeconfig, as collect --cluster
// loads it), collectors (the live state, the HNS service process), finding,
// formats, manifest, redact (a replayed bundle redacted as bundle redact does),
// snapshot.
package monitor
