package cluster

import _ "embed"

// RBAC is deploy/cluster-rbac.yaml: the namespace, the collector pods'
// read-only service account and the role diag collect --cluster needs.
//
//go:embed rbac.yaml
var RBAC string
