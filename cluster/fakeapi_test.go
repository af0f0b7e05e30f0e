package cluster

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/remotecommand"
	"k8s.io/client-go/rest"
	"k8s.io/streaming/pkg/httpstream/wsstream"

	"github.com/wincni/diag/bundle"
)

// Node behaviours the fake API server plays.
const (
	behaveOK          = "ok"
	behavePartial     = "partial"      // diag collect exits 3: the bundle arrives, some collectors failed
	behaveNeverStarts = "never-starts" // the pod stays Pending (ContainerCreating)
	behaveImagePull   = "image-pull"   // ImagePullBackOff
	behaveHang        = "hang"         // half the stream, then nothing
	behaveCut         = "cut"          // half the stream, then the connection drops
	behaveCutOnce     = "cut-once"     // cut at the first exec, whole at the second
	behaveCorrupt     = "corrupt"      // a byte of the bundle flipped on the way
	behaveText        = "text"         // an old diag: prints an error instead of a stream
)

type fakeNode struct {
	name, os, ready, behave string
}

type fakePod struct {
	node     string
	manifest map[string]any
	deleted  bool
	execs    int
}

// fakeAPI is an API server for collections: nodes, events, pods and exec
// over WebSocket (v5.channel.k8s.io through the same wsstream package the
// kubelet's streaming server uses).
type fakeAPI struct {
	t         *testing.T
	mu        sync.Mutex
	nodes     map[string]fakeNode
	order     []string
	pods      map[string]*fakePod
	events    []map[string]any
	forbidden map[string]bool // "create pods", "create pods/exec", "list nodes"
	unavail   atomic.Int32    // answers 503 to this many requests first
	gone      atomic.Bool     // the API server is gone: every connection is dropped
	running   atomic.Int32    // execs in progress
	maxRun    atomic.Int32
	bundles   map[string][]byte
	execDelay time.Duration // each collection takes this long before its stream
	srv       *httptest.Server
}

func newFakeAPI(t *testing.T, nodes ...fakeNode) *fakeAPI {
	f := &fakeAPI{t: t, nodes: map[string]fakeNode{}, pods: map[string]*fakePod{}, forbidden: map[string]bool{}, bundles: map[string][]byte{}}
	for _, n := range nodes {
		f.nodes[n.name] = n
		f.order = append(f.order, n.name)
	}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeAPI) api(t *testing.T) *API {
	a, err := NewAPI(&rest.Config{Host: f.srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	a.backoff = time.Millisecond
	return a
}

func (f *fakeAPI) status(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": msg, "code": code})
}

func (f *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	if f.gone.Load() {
		if hj, ok := w.(http.Hijacker); ok {
			if c, _, err := hj.Hijack(); err == nil {
				c.Close()
				return
			}
		}
	}
	if f.unavail.Add(-1) >= 0 {
		f.status(w, http.StatusServiceUnavailable, "the server is currently unable to handle the request")
		return
	}
	p := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case r.URL.Path == "/api/v1/nodes" && r.Method == http.MethodGet:
		if f.forbidden["list nodes"] {
			f.status(w, http.StatusForbidden, `nodes is forbidden: User "alice" cannot list resource "nodes" in API group "" at the cluster scope`)
			return
		}
		f.listNodes(w, r)
	case r.URL.Path == "/api/v1/events":
		json.NewEncoder(w).Encode(map[string]any{"items": f.events})
	case len(p) == 5 && p[4] == "pods" && r.Method == http.MethodPost:
		f.createPod(w, r, p[3])
	case len(p) == 5 && p[4] == "pods" && r.Method == http.MethodGet:
		f.listPods(w, r)
	case len(p) == 6 && p[4] == "pods" && r.Method == http.MethodGet:
		f.getPod(w, p[5])
	case len(p) == 6 && p[4] == "pods" && r.Method == http.MethodDelete:
		f.mu.Lock()
		pod := f.pods[p[5]]
		if pod != nil {
			pod.deleted = true
		}
		f.mu.Unlock()
		if pod == nil {
			f.status(w, http.StatusNotFound, "not found")
			return
		}
		w.Write([]byte(`{"kind":"Status","status":"Success"}`))
	case len(p) == 7 && p[6] == "exec":
		f.exec(w, r, p[5])
	default:
		f.status(w, http.StatusNotFound, "no route "+r.Method+" "+r.URL.Path)
	}
}

func (f *fakeAPI) listNodes(w http.ResponseWriter, r *http.Request) {
	sel := r.URL.Query().Get("labelSelector")
	var items []map[string]any
	for _, name := range f.order {
		n := f.nodes[name]
		labels := map[string]string{"kubernetes.io/os": n.os, "kubernetes.io/hostname": n.name}
		if sel != "" && sel != "kubernetes.io/os="+n.os {
			continue
		}
		ready := n.ready
		if ready == "" {
			ready = "True"
		}
		items = append(items, map[string]any{
			"metadata": map[string]any{"name": n.name, "labels": labels},
			"status": map[string]any{
				"conditions": []map[string]string{{"type": "Ready", "status": ready, "reason": "KubeletNotReady"}},
				"nodeInfo":   map[string]string{"operatingSystem": n.os, "kernelVersion": "10.0.20348.2340"},
			},
		})
	}
	json.NewEncoder(w).Encode(map[string]any{"kind": "NodeList", "items": items})
}

func (f *fakeAPI) createPod(w http.ResponseWriter, r *http.Request, ns string) {
	if f.forbidden["create pods"] {
		f.status(w, http.StatusForbidden, `pods is forbidden: User "alice" cannot create resource "pods" in API group "" in the namespace "`+ns+`"`)
		return
	}
	var m map[string]any
	if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
		f.status(w, http.StatusBadRequest, err.Error())
		return
	}
	name := m["metadata"].(map[string]any)["name"].(string)
	node := m["spec"].(map[string]any)["nodeName"].(string)
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, dup := f.pods[name]; dup {
		f.status(w, http.StatusConflict, "pods \""+name+"\" already exists")
		return
	}
	f.pods[name] = &fakePod{node: node, manifest: m}
	w.WriteHeader(http.StatusCreated)
	json.NewEncoder(w).Encode(m)
}

func (f *fakeAPI) listPods(w http.ResponseWriter, r *http.Request) {
	sel := r.URL.Query().Get("labelSelector")
	f.mu.Lock()
	defer f.mu.Unlock()
	var items []map[string]any
	for name, p := range f.pods {
		labels, _ := p.manifest["metadata"].(map[string]any)["labels"].(map[string]any)
		k, v, _ := strings.Cut(sel, "=")
		if p.deleted || labels[k] != v {
			continue
		}
		items = append(items, map[string]any{"metadata": map[string]any{"name": name}})
	}
	json.NewEncoder(w).Encode(map[string]any{"items": items})
}

func (f *fakeAPI) getPod(w http.ResponseWriter, name string) {
	f.mu.Lock()
	p := f.pods[name]
	f.mu.Unlock()
	if p == nil || p.deleted {
		f.status(w, http.StatusNotFound, "pods \""+name+"\" not found")
		return
	}
	st := map[string]any{"phase": "Running"}
	switch f.nodes[p.node].behave {
	case behaveNeverStarts:
		st = map[string]any{"phase": "Pending", "containerStatuses": []any{map[string]any{"state": map[string]any{"waiting": map[string]any{"reason": "ContainerCreating"}}}}}
	case behaveImagePull:
		st = map[string]any{"phase": "Pending", "containerStatuses": []any{map[string]any{"state": map[string]any{"waiting": map[string]any{
			"reason": "ImagePullBackOff", "message": `Back-off pulling image "registry.example/diag:v9"`}}}}}
	}
	json.NewEncoder(w).Encode(map[string]any{"status": st})
}

func (f *fakeAPI) exec(w http.ResponseWriter, r *http.Request, name string) {
	if f.forbidden["create pods/exec"] {
		f.status(w, http.StatusForbidden, `pods "`+name+`" is forbidden: User "alice" cannot create resource "pods/exec" in API group "" in the namespace "diag"`)
		return
	}
	f.mu.Lock()
	p := f.pods[name]
	if p != nil {
		p.execs++
	}
	f.mu.Unlock()
	if p == nil {
		f.status(w, http.StatusNotFound, "no pod "+name)
		return
	}
	cmd := r.URL.Query()["command"]
	if !strings.Contains(strings.Join(cmd, " "), "collect --stream") {
		f.t.Errorf("exec %v: not diag collect --stream", cmd)
	}
	if !wsstream.IsWebSocketRequest(r) {
		f.status(w, http.StatusBadRequest, "websocket only")
		return
	}
	conn := wsstream.NewConn(map[string]wsstream.ChannelProtocolConfig{
		remotecommand.StreamProtocolV5Name: {Binary: true, Channels: []wsstream.ChannelType{
			wsstream.IgnoreChannel, wsstream.WriteChannel, wsstream.WriteChannel, wsstream.WriteChannel, wsstream.ReadChannel}},
	})
	conn.SetIdleTimeout(time.Minute)
	_, streams, err := conn.Open(w, r)
	if err != nil {
		f.t.Errorf("websocket open: %v", err)
		return
	}
	defer conn.Close()
	n := f.running.Add(1)
	defer f.running.Add(-1)
	for {
		m := f.maxRun.Load()
		if n <= m || f.maxRun.CompareAndSwap(m, n) {
			break
		}
	}
	stdout, stderr, errc := streams[1], streams[2], streams[3]
	stdout.Write(nil)
	time.Sleep(f.execDelay)
	data := f.streamFor(p.node)
	fmt.Fprintf(stderr, "kubernetes: credentials from in-cluster (HostProcess)\n")
	behave := f.nodes[p.node].behave
	if behave == behaveCutOnce && p.execs == 1 {
		behave = behaveCut
	}
	switch behave {
	case behaveText:
		io.WriteString(stdout, "Error: unknown flag: --stream\r\n")
		io.WriteString(errc, `{"status":"Failure","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"2"}]}}`)
		return
	case behaveHang:
		stdout.Write(data[:len(data)/2])
		<-r.Context().Done()
		return
	case behaveCut:
		stdout.Write(data[:len(data)/2])
		return // the connection drops without a status
	case behaveCorrupt:
		data = bytes.Clone(data)
		data[len(data)/2] ^= 0xff
	}
	for len(data) > 0 {
		k := min(len(data), 32<<10)
		if _, err := stdout.Write(data[:k]); err != nil {
			return
		}
		data = data[k:]
	}
	if behave == behavePartial {
		io.WriteString(errc, `{"status":"Failure","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"3"}]}}`)
		return
	}
	io.WriteString(errc, `{"status":"Success"}`)
}

// streamFor is a node's framed bundle: a real bundle with a manifest and
// one HNS file, made once.
func (f *fakeAPI) streamFor(node string) []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	if b, ok := f.bundles[node]; ok {
		return b
	}
	dir := f.t.TempDir()
	w, err := bundle.Create(filepath.Join(dir, "b.zip"), bundle.Manifest{Node: node, OS: f.nodes[node].os})
	if err != nil {
		f.t.Fatal(err)
	}
	// Enough bytes for several chunks, incompressible.
	noise := make([]byte, 300<<10)
	for i := range noise {
		noise[i] = byte(i*7919 + len(node)*31 + i>>8)
	}
	w.WriteFile("hns/v2/networks.json", []byte(`[{"ID":"1","Name":"flannel.4096","Type":"Overlay"}]`))
	w.WriteFile("logs/noise.bin.txt", noise)
	if _, err := w.Close(); err != nil {
		f.t.Fatal(err)
	}
	zip, err := os.ReadFile(filepath.Join(dir, "b.zip"))
	if err != nil {
		f.t.Fatal(err)
	}
	var s bytes.Buffer
	if err := WriteStream(&s, bytes.NewReader(zip)); err != nil {
		f.t.Fatal(err)
	}
	f.bundles[node] = s.Bytes()
	return s.Bytes()
}

// live are the pods not deleted.
func (f *fakeAPI) live() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for n, p := range f.pods {
		if !p.deleted {
			out = append(out, n)
		}
	}
	return out
}
