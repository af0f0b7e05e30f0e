// Package realcluster runs a real Kubernetes control plane for tests on
// loopback: etcd, kube-apiserver (RBAC, Pod Security admission, an audit
// log) and kwok, which gives nodes and pods a lifecycle and answers exec
// by running a stand-in collector on this machine. The binaries come from
// tools/testcluster/build.sh; without them the tests that need the
// control plane are skipped with the command that builds them.
//
// Imports: none.
package realcluster
