package collectors

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func writeKubeconfig(t *testing.T, server string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config")
	cfg := fmt.Sprintf("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: %s\n    insecure-skip-tls-verify: true\ncontexts:\n- name: c\n  context:\n    cluster: c\n    user: u\ncurrent-context: c\nusers:\n- name: u\n  user:\n    token: test-token-123\n", server)
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// (client-go sends a token only over TLS, so the fake API server is TLS.)

// The Kubernetes collector GETs nodes, services and this node's pods with
// the kubeconfig's credentials and stores the bodies as returned.
func TestKubeCollector(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.RequestURI()+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		switch r.URL.Path {
		case "/api/v1/nodes":
			fmt.Fprint(w, `{"kind":"NodeList","apiVersion":"v1","items":[{"metadata":{"name":"win-1","annotations":{"flannel.alpha.coreos.com/public-ip":"10.20.30.11"}},"spec":{"podCIDR":"100.244.206.64/26"}}]}`)
		case "/api/v1/services":
			fmt.Fprint(w, `{"kind":"ServiceList","apiVersion":"v1","items":[]}`)
		case "/apis/discovery.k8s.io/v1/endpointslices":
			fmt.Fprint(w, `{"kind":"EndpointSliceList","apiVersion":"discovery.k8s.io/v1","items":[]}`)
		case "/api/v1/pods":
			fmt.Fprint(w, `{"kind":"PodList","apiVersion":"v1","items":[{"metadata":{"name":"p"},"spec":{"containers":[{"env":[{"name":"DB_PASSWORD","value":"hunter2-secret"}]}]}}]}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	kube, from, err := NewKubeSource(writeKubeconfig(t, srv.URL))
	if err != nil || kube == nil {
		t.Fatalf("kube source: %v", err)
	}
	if !strings.HasSuffix(from, "config") {
		t.Errorf("from %q", from)
	}
	w, path := newTestWriter(t)
	if !Run(context.Background(), w, &Env{Kube: kube, NodeName: "win-1"}, []Collector{KubeCollector()}, RunOptions{}) {
		t.Error("not complete")
	}
	b := closeAndVerify(t, w, path)
	nodes, _ := b.ReadFile("k8s/nodes.json")
	if !strings.Contains(string(nodes), "flannel.alpha.coreos.com/public-ip") {
		t.Errorf("nodes.json %s", nodes)
	}
	// Calico's resources answer 404 on this cluster: not an error, no file.
	if b.Has("k8s/calico-ipamconfigs.json") || result(t, b, "kubernetes").Status != "ok" {
		t.Errorf("404 on Calico's IPAM: %+v", result(t, b, "kubernetes"))
	}
	pods, _ := b.ReadFile("k8s/pods.json")
	if strings.Contains(string(pods), "hunter2-secret") {
		t.Error("a pod's secret env value reached the bundle")
	}
	want := []string{"GET /api/v1/nodes Bearer test-token-123", "GET /api/v1/services Bearer test-token-123", "GET /apis/discovery.k8s.io/v1/endpointslices Bearer test-token-123",
		"GET /apis/crd.projectcalico.org/v1/ipamconfigs Bearer test-token-123", "GET /apis/crd.projectcalico.org/v1/blockaffinities Bearer test-token-123",
		"GET /apis/crd.projectcalico.org/v1/ipamblocks Bearer test-token-123", "GET /api/v1/pods?fieldSelector=spec.nodeName%3Dwin-1 Bearer test-token-123"}
	if strings.Join(seen, "\n") != strings.Join(want, "\n") {
		t.Errorf("requests:\n%s\nwant:\n%s", strings.Join(seen, "\n"), strings.Join(want, "\n"))
	}
}

// An API server that cannot be reached makes the collector skipped, not
// failed: the node's own state is what matters.
func TestKubeCollectorUnreachable(t *testing.T) {
	srv := httptest.NewTLSServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	kube, _, err := NewKubeSource(writeKubeconfig(t, url))
	if err != nil {
		t.Fatal(err)
	}
	w, path := newTestWriter(t)
	if !Run(context.Background(), w, &Env{Kube: kube, NodeName: "win-1"}, []Collector{KubeCollector()}, RunOptions{}) {
		t.Error("an unreachable API server made the bundle incomplete")
	}
	b := closeAndVerify(t, w, path)
	if r := result(t, b, "kubernetes"); r.Status != "skipped" || !strings.Contains(r.Error, "unreachable") {
		t.Errorf("kubernetes: %+v", r)
	}
}

// An API server that refuses (RBAC) makes it failed, with the reason, or
// without one when it gives none (not a message ending in ": ").
func TestKubeCollectorForbidden(t *testing.T) {
	for body, want := range map[string]string{
		`{"kind":"Status","message":"nodes is forbidden"}`: `403 Forbidden: {"kind":"Status","message":"nodes is forbidden"}`,
		"": "403 Forbidden (no reason given)",
	} {
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, body)
		}))
		srv.StartTLS()
		kube, _, _ := NewKubeSource(writeKubeconfig(t, srv.URL))
		w, path := newTestWriter(t)
		Run(context.Background(), w, &Env{Kube: kube}, []Collector{KubeCollector()}, RunOptions{})
		b := closeAndVerify(t, w, path)
		if r := result(t, b, "kubernetes"); r.Status != "failed" || !strings.Contains(r.Error, want) || strings.HasSuffix(r.Error, ": ") {
			t.Errorf("kubernetes, body %q: %+v, want %q", body, r, want)
		}
		srv.Close()
	}
}

func TestNewKubeSourceBadFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config")
	os.WriteFile(path, []byte("not: [yaml"), 0o600)
	if _, _, err := NewKubeSource(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("error %v does not name the file", err)
	}
}
