package cluster

import (
	_ "embed"
	"strings"
)

// RBAC is deploy/cluster-rbac.yaml: the namespace, the collector pods'
// read-only service account and the role diag collect --cluster needs.
//
//go:embed rbac.yaml
var RBAC string

// RBACFor is RBAC with the collector pods' namespace named ns. The
// cluster-scoped binding of ns's service account is named after ns, so
// that RBAC for two namespaces applied one after the other binds both.
func RBACFor(ns string) string {
	if ns == "" || ns == "diag" {
		return RBAC
	}
	s := strings.ReplaceAll(RBAC, "\n  namespace: diag\n", "\n  namespace: "+ns+"\n")
	s = strings.ReplaceAll(s, "\n    namespace: diag\n", "\n    namespace: "+ns+"\n")
	s = strings.ReplaceAll(s, "kubectl -n diag ", "kubectl -n "+ns+" ")
	s = strings.Replace(s, "kind: ClusterRoleBinding\nmetadata:\n  name: diag-read\n", "kind: ClusterRoleBinding\nmetadata:\n  name: diag-read-"+ns+"\n", 1)
	return strings.Replace(s, "kind: Namespace\nmetadata:\n  name: diag\n", "kind: Namespace\nmetadata:\n  name: "+ns+"\n", 1)
}
