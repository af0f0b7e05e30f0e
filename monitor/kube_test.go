package monitor

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/wincni/diag/bundle"
	"github.com/wincni/diag/formats"
)

// watchServer is an API server with one object of each kind the watches
// read; a watch of pods sends one more pod, the others stay open. forbid
// answers 403 to lists of that resource.
type watchServer struct {
	forbid    string
	lists     atomic.Int32
	podFields atomic.Value // the pods list's field selector
}

func (s *watchServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/readyz" { // the liveness probe: no list
		fmt.Fprint(w, "ok")
		return
	}
	q := r.URL.Query()
	res := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
	if res == s.forbid {
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","message":"%s is forbidden: User \"system:serviceaccount:diag:diag-monitor\" cannot list resource \"%s\"","reason":"Forbidden","code":403}`, res, res)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	item := s.item(res)
	if q.Get("watch") == "true" {
		fl := w.(http.Flusher)
		// client-go lists through the watch when the server can
		// (sendInitialEvents): the objects, then a bookmark that ends
		// them, as kube-apiserver sends it.
		if q.Get("sendInitialEvents") == "true" {
			kind, _, _ := strings.Cut(item, ",")
			fmt.Fprintf(w, `{"type":"ADDED","object":%s}`+"\n", item)
			fmt.Fprintf(w, `{"type":"BOOKMARK","object":{%s,"metadata":{"resourceVersion":"1","annotations":{"k8s.io/initial-events-end":"true"}}}}`+"\n", strings.TrimPrefix(kind, "{")+","+apiVersionOf(res))
			s.lists.Add(1)
			if res == "pods" {
				s.podFields.Store(q.Get("fieldSelector"))
			}
		}
		if res == "pods" {
			fmt.Fprint(w, `{"type":"ADDED","object":{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web-2","namespace":"default","resourceVersion":"2"},"spec":{"nodeName":"win-1"},"status":{"phase":"Running","podIP":"10.244.1.8"}}}`+"\n")
		}
		fl.Flush()
		<-r.Context().Done()
		return
	}
	s.lists.Add(1)
	if res == "pods" {
		s.podFields.Store(q.Get("fieldSelector"))
	}
	fmt.Fprintf(w, `{"metadata":{"resourceVersion":"1"},"items":[%s]}`, item)
}

func apiVersionOf(res string) string {
	if res == "endpointslices" {
		return `"apiVersion":"discovery.k8s.io/v1"`
	}
	return `"apiVersion":"v1"`
}

// item is the one object of a resource, its kind first.
func (s *watchServer) item(res string) string {
	switch res {
	case "pods":
		return `{"kind":"Pod","apiVersion":"v1","metadata":{"name":"web-1","namespace":"default","resourceVersion":"1","managedFields":[{"manager":"kubelet"}]},"spec":{"nodeName":"win-1"},"status":{"phase":"Running","podIP":"10.244.1.7"}}`
	case "nodes":
		return `{"kind":"Node","apiVersion":"v1","metadata":{"name":"win-1","resourceVersion":"1","labels":{"kubernetes.io/os":"windows"}},"spec":{"podCIDR":"10.244.1.0/24"},"status":{"images":[{"names":["mcr.microsoft.com/windows/nanoserver:ltsc2022"],"sizeBytes":123}],"addresses":[{"type":"InternalIP","address":"192.168.1.11"}]}}`
	case "services":
		return `{"kind":"Service","apiVersion":"v1","metadata":{"name":"kube-dns","namespace":"kube-system","resourceVersion":"1"},"spec":{"clusterIP":"10.96.0.10","ports":[{"port":53,"protocol":"UDP"}]}}`
	case "endpointslices":
		return `{"kind":"EndpointSlice","apiVersion":"discovery.k8s.io/v1","metadata":{"name":"kube-dns-1","namespace":"kube-system","resourceVersion":"1","labels":{"kubernetes.io/service-name":"kube-dns"}},"addressType":"IPv4","endpoints":[{"addresses":["10.244.1.5"]}]}`
	}
	return "{}"
}

// collectKube writes what the watches hold into a bundle directory and
// opens it as a round does.
func collectKube(t *testing.T, k KubeView) (*bundle.Bundle, func()) {
	t.Helper()
	dir := t.TempDir()
	lists, err := k.Lists()
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range lists {
		if err := writeEntry(dir, name, data); err != nil {
			t.Fatal(err)
		}
	}
	b, err := bundle.Open(dir, bundle.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	return b, func() { b.Close() }
}

func waitSynced(t *testing.T, k *KubeWatch, want func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !want() {
		if time.Now().After(deadline) {
			t.Fatalf("watches not where wanted after 20 s: %v", k.Err())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// startWatch starts the watches of node win-1 against ws, both stopped
// when the test ends.
func startWatch(t *testing.T, ws *watchServer) *KubeWatch {
	t.Helper()
	srv := httptest.NewServer(ws)
	t.Cleanup(srv.Close)
	k, err := NewKubeWatch(&rest.Config{Host: srv.URL}, "win-1")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	k.Start(ctx)
	return k
}

// The watches list once, take changes from the watch, and the round's
// bundle gets the lists formats reads, without the fields no rule reads.
func TestKubeWatch(t *testing.T) {
	ws := &watchServer{}
	k := startWatch(t, ws)
	waitSynced(t, k, func() bool {
		return k.Err() == nil && len(k.informers[0].informer.GetStore().List()) == 2
	})
	if got := ws.podFields.Load(); got != "spec.nodeName=win-1" {
		t.Errorf("pods listed with field selector %q, want this node's", got)
	}
	b, done := collectKube(t, k)
	defer done()
	s, err := formats.Load(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Pods) != 2 || len(s.KubeNodes) != 1 || len(s.Services) != 1 || len(s.EndpointSlices) != 1 {
		t.Errorf("from the watches: %d pods, %d nodes, %d services, %d endpoint slices; want 2, 1, 1, 1", len(s.Pods), len(s.KubeNodes), len(s.Services), len(s.EndpointSlices))
	}
	for _, name := range []string{"k8s/pods.json", "k8s/nodes.json"} {
		data, _ := b.ReadFile(name)
		if strings.Contains(string(data), "managedFields") || strings.Contains(string(data), "nanoserver") {
			t.Errorf("%s keeps fields no rule reads: %s", name, data)
		}
		var list struct{ Kind string }
		if json.Unmarshal(data, &list) != nil || !strings.HasSuffix(list.Kind, "List") {
			t.Errorf("%s is not a List: %.100s", name, data)
		}
	}
	lists := ws.lists.Load()
	b2, done2 := collectKube(t, k)
	done2()
	_ = b2
	if got := ws.lists.Load(); got != lists {
		t.Errorf("a second round listed %d time(s): the rounds must read the watches", got-lists)
	}
}

// A list the service account may not make: the error says so, the other
// kinds are still written, and the rules that need the missing one skip.
func TestKubeWatchForbidden(t *testing.T) {
	k := startWatch(t, &watchServer{forbid: "services"})
	waitSynced(t, k, func() bool {
		err := k.Err()
		return err != nil && strings.Contains(err.Error(), "forbidden") && k.informers[0].informer.HasSynced()
	})
	if err := k.Err(); err == nil || !strings.Contains(err.Error(), "ServiceList") {
		t.Errorf("Err = %v, want it to name the services watch", err)
	}
	b, done := collectKube(t, k)
	defer done()
	if !b.Has("k8s/pods.json") || b.Has("k8s/services.json") {
		t.Errorf("bundle %v: want pods, no services", b.Names())
	}
}
