package cluster

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

type rbacRule struct {
	APIGroups []string `json:"apiGroups"`
	Resources []string `json:"resources"`
	Verbs     []string `json:"verbs"`
}

type rbacObject struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name      string            `json:"name"`
		Namespace string            `json:"namespace"`
		Labels    map[string]string `json:"labels"`
	} `json:"metadata"`
	Rules []rbacRule `json:"rules"`
}

func rbacObjects(t *testing.T) []rbacObject {
	var out []rbacObject
	for _, doc := range strings.Split(RBAC, "\n---\n") {
		var o rbacObject
		if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
			t.Fatalf("%v in\n%s", err, doc)
		}
		out = append(out, o)
	}
	return out
}

// Every request a collection sends is allowed by the role it ships, at
// the scope it is sent at, and nothing more is granted than those.
func TestRBACAllowsWhatCollectionSends(t *testing.T) {
	sent := []struct{ verb, resource, namespace string }{
		{"list", "nodes", ""},  // Choose
		{"list", "events", ""}, // --nodes auto
		{"create", "pods", "diag"}, {"list", "pods", "diag"}, {"watch", "pods", "diag"}, {"delete", "pods", "diag"},
		{"create", "pods/exec", "diag"}, {"get", "pods/exec", "diag"},
	}
	allows := func(kind, ns string, verb, resource string) bool {
		for _, o := range rbacObjects(t) {
			if o.Kind != kind || o.Metadata.Name != "diag-cluster-collector" || o.Metadata.Namespace != ns {
				continue
			}
			for _, r := range o.Rules {
				if slices.Contains(r.APIGroups, "") && slices.Contains(r.Resources, resource) && slices.Contains(r.Verbs, verb) {
					return true
				}
			}
		}
		return false
	}
	granted := 0
	for _, o := range rbacObjects(t) {
		if o.Metadata.Name == "diag-cluster-collector" {
			for _, r := range o.Rules {
				granted += len(r.Resources) * len(r.Verbs)
			}
		}
	}
	for _, s := range sent {
		kind := "Role"
		if s.namespace == "" {
			kind = "ClusterRole"
		}
		if !allows(kind, s.namespace, s.verb, s.resource) {
			t.Errorf("%s %s in %q is not granted by the %s", s.verb, s.resource, s.namespace, kind)
		}
	}
	if granted != len(sent)+1 { // + get nodes, for kubectl-like single lookups
		t.Errorf("the roles grant %d verb/resource pairs, the collection sends %d", granted, len(sent))
	}
	for _, o := range rbacObjects(t) {
		if o.Kind == "Namespace" && o.Metadata.Labels["pod-security.kubernetes.io/enforce"] != "privileged" {
			t.Errorf("namespace %s does not admit HostProcess pods", o.Metadata.Name)
		}
		if o.Kind == "ServiceAccount" && o.Metadata.Name != ServiceAccount {
			t.Errorf("service account %s, pods use %s", o.Metadata.Name, ServiceAccount)
		}
	}
}

// deploy/cluster-rbac.yaml is the file --print-rbac prints.
func TestDeployedRBACIsPrinted(t *testing.T) {
	data, err := os.ReadFile("../deploy/cluster-rbac.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(data, []byte(RBAC)) {
		t.Error("deploy/cluster-rbac.yaml differs from cluster/rbac.yaml: cp cluster/rbac.yaml deploy/cluster-rbac.yaml")
	}
}

// --print-rbac --namespace ops names ops wherever the pods' namespace is.
func TestRBACForNamespace(t *testing.T) {
	out := RBACFor("ops")
	if strings.Contains(out, "namespace: diag") || strings.Count(out, "namespace: ops") != 3 || !strings.Contains(out, "kind: Namespace\nmetadata:\n  name: ops\n") {
		t.Errorf("%s", out)
	}
	// Cluster-scoped objects: shared ones (roles) are the same text for
	// every namespace; each namespace's binding has its own name.
	names := map[string]string{}
	for _, ns := range []string{"diag", "ops"} {
		for _, doc := range strings.Split(RBACFor(ns), "\n---\n") {
			var o rbacObject
			if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
				t.Fatal(err)
			}
			if o.Metadata.Namespace != "" || o.Kind == "Namespace" {
				continue
			}
			key := o.Kind + "/" + o.Metadata.Name
			if prev, ok := names[key]; ok && prev != doc {
				t.Errorf("%s differs between namespaces diag and %s: applying one replaces the other", key, ns)
			}
			names[key] = doc
		}
	}
}
