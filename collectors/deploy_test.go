package collectors

import (
	"slices"
	"strings"
	"testing"

	"github.com/wincni/diag/deploy/deploytest"
)

// The HostProcess manifest runs diag collect as SYSTEM on the host network
// of every Windows node, tells it its node name, and its read-only RBAC
// allows every list the Kubernetes collector reads, and nothing that
// writes.
func TestDeployManifest(t *testing.T) {
	var role, ds *deploytest.Doc
	for _, d := range deploytest.Read(t, "../deploy/hostprocess-daemonset.yaml") {
		switch d.Kind {
		case "ClusterRole":
			role = &d
		case "DaemonSet":
			ds = &d
		}
	}
	if role == nil || ds == nil {
		t.Fatal("manifest lacks the ClusterRole or the DaemonSet")
	}
	allowed := func(group, resource string) bool {
		for _, r := range role.Rules {
			if slices.Contains(r.APIGroups, group) && slices.Contains(r.Resources, resource) && slices.Contains(r.Verbs, "list") {
				return true
			}
		}
		return false
	}
	for _, q := range append(kubeQueries, kubeQuery{path: "/api/v1/pods"}) {
		parts := strings.Split(strings.TrimPrefix(strings.SplitN(q.path, "?", 2)[0], "/"), "/")
		group, resource := "", parts[len(parts)-1]
		if parts[0] == "apis" {
			group = parts[1]
		}
		if !allowed(group, resource) {
			t.Errorf("the ClusterRole does not let the collector list %q in group %q (GET %s)", resource, group, q.path)
		}
	}
	for _, r := range role.Rules {
		for _, v := range r.Verbs {
			if v != "get" && v != "list" {
				t.Errorf("the ClusterRole grants %q on %v", v, r.Resources)
			}
		}
	}
	spec := ds.Spec.Template.Spec
	if !spec.HostNetwork || !spec.SecurityContext.WindowsOptions.HostProcess || spec.SecurityContext.WindowsOptions.RunAsUserName != `NT AUTHORITY\SYSTEM` ||
		spec.NodeSelector["kubernetes.io/os"] != "windows" {
		t.Errorf("not a Windows HostProcess pod as SYSTEM on the host network: %+v", spec)
	}
	if len(spec.Containers) != 1 || !strings.Contains(strings.Join(spec.Containers[0].Command, " "), "diag.exe\" collect") {
		t.Fatalf("the container does not run diag collect: %+v", spec.Containers)
	}
	nodeName := false
	for _, e := range spec.Containers[0].Env {
		nodeName = nodeName || e.Name == "NODE_NAME" && e.ValueFrom.FieldRef.FieldPath == "spec.nodeName"
	}
	if !nodeName {
		t.Error("NODE_NAME does not come from spec.nodeName")
	}
}
