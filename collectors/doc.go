// Package collectors is what runs on a node: the collectors that read HNS,
// VFP, host, Kubernetes and Linux overlay state, and the runner that runs
// them in parallel into a bundle with timeouts, panic recovery and partial
// results. Every collector is read-only and reaches the node only through
// the small interfaces of Env (an HNS source, a command runner, a file
// system, a Kubernetes source), so all of it is tested on Linux with fakes.
//
// Imports: bundle, capture (live capture), hostexec (the node's tools run),
// manifest (each collector's outcome), redact (every text file redacted
// before it is stored).
package collectors
