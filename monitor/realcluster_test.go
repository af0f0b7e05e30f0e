//go:build !windows

package monitor

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	"github.com/wincni/diag/cluster/clustertest/realcluster"
	"github.com/wincni/diag/finding"
)

// monitorSA is the user deploy/monitor.yaml's pods speak as.
const monitorSA = "system:serviceaccount:diag:diag-monitor"

// TestRealAPIServer holds deploy/monitor.yaml's RBAC and the monitor's
// Kubernetes side to a real kube-apiserver (package realcluster): as the
// monitor's service account, the watches sync and see a pod scheduled on
// the node, an Event is created on the Node and counted up, and nothing
// beyond reading and Events is allowed. make test-monitor runs it with
// the control plane make test-cluster builds; without it, it skips.
func TestRealAPIServer(t *testing.T) {
	cp := startWithWindowsNode(t)
	if err := cp.Apply(cp.Admin, rbacOf(t, "../deploy/monitor.yaml")); err != nil {
		t.Fatal(err)
	}
	kc, err := cp.Kubeconfig(monitorSA, "system:serviceaccounts", "system:serviceaccounts:diag", "system:authenticated")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", kc)
	if err != nil {
		t.Fatal(err)
	}

	// The watches, as the service account.
	k := startSyncedWatch(t, cfg)
	// No controller makes the namespace's default service account here.
	if err := cp.Apply(cp.Admin, "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: default, namespace: default}\n"); err != nil {
		t.Fatal(err)
	}
	pod := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-1","namespace":"default"},"spec":{"nodeName":"win-1","containers":[{"name":"web","image":"mcr.microsoft.com/windows/nanoserver:ltsc2022"}]}}`
	if _, err := cp.Do(cp.Admin, http.MethodPost, "/api/v1/namespaces/default/pods", "application/json", []byte(pod)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the pod seen by the watch", func() (bool, string) {
		lists, err := k.Lists()
		if err != nil {
			return false, err.Error()
		}
		return strings.Contains(string(lists["k8s/pods.json"]), `"web-1"`) && strings.Contains(string(lists["k8s/nodes.json"]), `"win-1"`), string(lists["k8s/pods.json"])
	})

	// An Event on the Node, then the same transition counted up.
	api, err := NewEventAPI(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ev := &Eventer{Client: api, Node: "win-1"}
	f := finding.Finding{ID: "OVL-02", Severity: finding.Fail, Summary: "no RemoteSubnetRoute on network flannel.4096 for node linux-1", Remediation: "restart flanneld", Subjects: []string{"node:linux-1"}}
	for i, want := range []EventResult{EventCreated, EventAggregated} {
		res, err := ev.Emit(t.Context(), ReasonAppeared, f, "")
		if err != nil || res != want {
			t.Fatalf("Emit %d: %v %v, want %v", i+1, res, err, want)
		}
	}
	data, err := cp.Get(cp.Admin, "/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dwin-1,reason%3D"+ReasonAppeared)
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Items []struct {
			Count          int32
			Message        string
			Type           string
			InvolvedObject struct{ Kind, Name string }
		}
	}
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || list.Items[0].Count != 2 || list.Items[0].Type != "Warning" || list.Items[0].InvolvedObject.Kind != "Node" ||
		!strings.Contains(list.Items[0].Message, "Fix: restart flanneld") {
		t.Errorf("Events on win-1: %+v, want one Warning counted to 2 with the fix", list.Items)
	}
	// A monitor that restarts finds its Events (listed by field selectors
	// the real server indexes, with the manifest's RBAC) and counts up.
	restarted := &Eventer{Client: api, Node: "win-1"}
	if res, err := restarted.Emit(t.Context(), ReasonAppeared, f, ""); err != nil || res != EventAggregated {
		t.Errorf("Emit after a restart: %v %v, want %v", res, err, EventAggregated)
	}

	// Nothing more than reading and Events.
	for _, a := range []struct{ verb, resource, namespace string }{
		{"create", "pods", "default"}, {"delete", "pods", "default"}, {"list", "secrets", ""}, {"get", "configmaps", "kube-system"},
		{"update", "nodes", ""}, {"patch", "nodes", ""}, {"delete", "events", "default"}, {"create", "events", "kube-system"},
	} {
		if cp.Allowed(monitorSA, a.verb, a.resource, a.namespace) {
			t.Errorf("the monitor may %s %s in %q", a.verb, a.resource, a.namespace)
		}
	}
}

// rbacOf is the documents of a manifest the monitor's access consists of.
func rbacOf(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var keep []string
	for _, doc := range strings.Split(string(data), "\n---\n") {
		var obj struct{ Kind string }
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
			t.Fatal(err)
		}
		switch obj.Kind {
		case "Namespace", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding":
			keep = append(keep, doc)
		}
	}
	return strings.Join(keep, "\n---\n")
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// startWithWindowsNode starts the control plane (it skips the test
// without one) with one Windows node, win-1, that runs no kubelet.
func startWithWindowsNode(t *testing.T) *realcluster.ControlPlane {
	t.Helper()
	realcluster.Binaries(t) // skips without the control plane
	standin := filepath.Join(t.TempDir(), "standin")
	if out, err := exec.Command("go", "build", "-o", standin, "../cluster/clustertest/realcluster/standin").CombinedOutput(); err != nil {
		t.Fatalf("build the stand-in: %v\n%s", err, out)
	}
	cp := realcluster.Start(t, standin, realcluster.Options{})
	if err := cp.AddNodes(realcluster.NodeSpec{Name: "win-1", OS: "windows", NoKubelet: true}); err != nil {
		t.Fatal(err)
	}
	return cp
}

// startSyncedWatch starts the watches of node win-1 with cfg, stopped when
// the test ends, and waits until they have synced.
func startSyncedWatch(t *testing.T, cfg *rest.Config) *KubeWatch {
	t.Helper()
	k, err := NewKubeWatch(cfg, "win-1")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	k.Start(ctx)
	waitFor(t, 60*time.Second, "the watches synced", func() (bool, string) {
		err := k.Err()
		return err == nil, errString(err)
	})
	return k
}
