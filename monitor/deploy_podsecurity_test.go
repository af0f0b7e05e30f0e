package monitor

import (
	"os"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// deploy/monitor.yaml's pods use hostNetwork, hostPort, hostPath and
// HostProcess: only Pod Security's privileged level admits them (a
// server-side dry run of each DaemonSet's pod in a namespace labelled
// enforce=baseline is refused by kube-apiserver v1.34). A cluster whose
// default level is baseline or restricted refuses them unless the
// namespace says privileged, as deploy/cluster-rbac.yaml's does.
func TestMonitorNamespaceAdmitsItsPods(t *testing.T) {
	data, err := os.ReadFile("../deploy/monitor.yaml")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, doc := range strings.Split(string(data), "\n---\n") {
		var o struct {
			Kind     string
			Metadata struct {
				Name   string
				Labels map[string]string
			}
		}
		if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
			t.Fatal(err)
		}
		if o.Kind != "Namespace" {
			continue
		}
		found = true
		if got := o.Metadata.Labels["pod-security.kubernetes.io/enforce"]; got != "privileged" {
			t.Errorf("namespace %s: pod-security.kubernetes.io/enforce = %q, want privileged (its DaemonSets' pods are HostProcess / host-network with hostPath)", o.Metadata.Name, got)
		}
	}
	if !found {
		t.Fatal("deploy/monitor.yaml has no Namespace")
	}
}
