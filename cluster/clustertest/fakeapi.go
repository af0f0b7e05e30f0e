package clustertest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/remotecommand"
	"k8s.io/streaming/pkg/httpstream"
	"k8s.io/streaming/pkg/httpstream/spdy"
	"k8s.io/streaming/pkg/httpstream/wsstream"

	"github.com/wincni/diag/bundle"
	"github.com/wincni/diag/manifest"
)

// Node behaviours the fake API server plays.
const (
	OK          = "ok"
	Partial     = "partial"      // diag collect exits 3: the bundle arrives, some collectors failed
	NeverStarts = "never-starts" // the pod stays Pending (ContainerCreating)
	ImagePull   = "image-pull"   // ImagePullBackOff
	Hang        = "hang"         // half the stream, then nothing
	Cut         = "cut"          // half the stream, then the connection drops
	CutOnce     = "cut-once"     // cut at the first exec, whole at the second
	Corrupt     = "corrupt"      // a byte of the bundle flipped on the way
	Text        = "text"         // an old diag: prints an error instead of a stream
	HangAfter   = "hang-after"   // the whole stream, then no exit status
	SlowStart   = "slow-start"   // the pod is Pending for a second, then Running
	TextHang    = "text-hang"    // a short error message, then nothing
	Crashed     = "crashed"      // the pod's container ended with a stack in its message
	Stuck       = "stuck"        // the node's kubelet never confirms a delete: the pod stays Terminating
)

// Node is a node of the fake cluster: its OS, its Ready condition ("" is
// True) and how its collector pod behaves.
type Node struct {
	Name, OS, Ready, Behave string
}

type fakePod struct {
	created  time.Time
	node     string
	manifest map[string]any
	deleted  bool // gone
	deleting bool // Terminating
	execs    int
}

// fakeAPI is an API server for collections: nodes, events, pods and exec
// over WebSocket (v5.channel.k8s.io through the same wsstream package the
// kubelet's streaming server uses).
type Server struct {
	t         *testing.T
	mu        sync.Mutex
	nodes     map[string]Node
	order     []string
	pods      map[string]*fakePod
	Events    []map[string]any
	Forbidden map[string]bool // "create pods", "create pods/exec", "list nodes"
	Unavail   atomic.Int32    // answers 503 to this many requests first
	Gone      atomic.Bool     // the API server is gone: every connection is dropped
	running   atomic.Int32    // execs in progress
	MaxRun    atomic.Int32
	bundles   map[string][]byte
	ExecDelay time.Duration // each collection takes this long before its stream
	Srv       *httptest.Server
	frame     func([]byte) []byte
	version   int                          // the last list's resourceVersion
	lists     map[string]map[string]string // what each list sent, by its version
	// CreateDelay: a pod creation takes this long, and the pod is made
	// even when the client gave up before (as a real server does).
	CreateDelay time.Duration
	// RefuseOS: creations of pods for nodes of that OS are refused (403)
	// with this message, as an admission policy does.
	RefuseOS map[string]string
	// RefuseNode: the same for one node's pod, by node name.
	RefuseNode map[string]string
	creates    map[string]int // creations asked, by OS
	// Bundle, when set, gives a node's bundle (a zip); else a small one
	// is made.
	Bundle func(node string) []byte
	// LoseCreateAnswers: this many pod creations succeed but answer 503,
	// as when the answer is lost on the way; FailCreates: this many then
	// answer 503 without creating anything.
	LoseCreateAnswers, FailCreates atomic.Int32
	// RetryAfter is the Retry-After header of the 503s Unavail sends.
	RetryAfter string
	// NoWebSocket: the server refuses WebSocket exec (before Kubernetes
	// 1.30), so the client must fall back to SPDY.
	NoWebSocket bool
	// Commands are the commands exec'd, by pod.
	Commands map[string][]string
	// RefuseWatch: from now on watches of pods are refused (403, as RBAC
	// refuses a user without watch) and those open end, as when the
	// permission is taken away mid-run; RefusedWatches counts the
	// refusals sent, PodLists the lists of pods answered.
	RefuseWatch    atomic.Bool
	RefusedWatches atomic.Int32
	PodLists       atomic.Int32
	// OnExec, when set before the run, is called as an exec into a pod
	// starts, before its stream.
	OnExec func(pod string)
}

// NewServer starts the fake API server with the nodes; frame makes the
// byte stream diag collect --stream writes of a bundle.
func NewServer(t *testing.T, frame func(bundle []byte) []byte, nodes ...Node) *Server {
	f := &Server{t: t, frame: frame, nodes: map[string]Node{}, pods: map[string]*fakePod{}, Forbidden: map[string]bool{}, Commands: map[string][]string{}, bundles: map[string][]byte{},
		RefuseOS: map[string]string{}, RefuseNode: map[string]string{}, creates: map[string]int{}}
	for _, n := range nodes {
		f.nodes[n.Name] = n
		f.order = append(f.order, n.Name)
	}
	f.Srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Srv.Close)
	return f
}

func (f *Server) status(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": msg, "code": code})
}

func (f *Server) serve(w http.ResponseWriter, r *http.Request) {
	if f.Gone.Load() {
		if hj, ok := w.(http.Hijacker); ok {
			if c, _, err := hj.Hijack(); err == nil {
				c.Close()
				return
			}
		}
	}
	if f.Unavail.Add(-1) >= 0 {
		if f.RetryAfter != "" {
			w.Header().Set("Retry-After", f.RetryAfter)
		}
		f.status(w, http.StatusServiceUnavailable, "the server is currently unable to handle the request")
		return
	}
	p := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case r.URL.Path == "/api/v1/nodes" && r.Method == http.MethodGet:
		if f.Forbidden["list nodes"] {
			f.status(w, http.StatusForbidden, `nodes is forbidden: User "alice" cannot list resource "nodes" in API group "" at the cluster scope`)
			return
		}
		f.listNodes(w, r)
	case r.URL.Path == "/api/v1/events":
		f.listEvents(w, r)
	case len(p) == 5 && p[4] == "pods" && r.Method == http.MethodPost:
		f.createPod(w, r, p[3])
	case len(p) == 5 && p[4] == "pods" && r.Method == http.MethodGet:
		f.listPods(w, r)
	case len(p) == 6 && p[4] == "pods" && r.Method == http.MethodGet:
		if f.Forbidden["get pods"] {
			f.status(w, http.StatusForbidden, `pods "`+p[5]+`" is forbidden: User "alice" cannot get resource "pods" in API group "" in the namespace "diag"`)
			return
		}
		f.getPod(w, p[5])
	case len(p) == 6 && p[4] == "pods" && r.Method == http.MethodDelete:
		if f.Forbidden["delete pods"] {
			f.status(w, http.StatusForbidden, `pods "`+p[5]+`" is forbidden: User "alice" cannot delete resource "pods" in API group "" in the namespace "diag"`)
			return
		}
		f.mu.Lock()
		pod := f.pods[p[5]]
		if pod != nil && pod.deleted {
			pod = nil
		}
		if pod != nil {
			var opts struct {
				GracePeriodSeconds *int `json:"gracePeriodSeconds"`
			}
			_ = json.NewDecoder(r.Body).Decode(&opts)
			if f.nodes[pod.node].Behave == Stuck && (opts.GracePeriodSeconds == nil || *opts.GracePeriodSeconds > 0) {
				pod.deleting = true
			} else {
				pod.deleted = true
			}
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

func (f *Server) listNodes(w http.ResponseWriter, r *http.Request) {
	sel := r.URL.Query().Get("labelSelector")
	var items []map[string]any
	for _, name := range f.order {
		n := f.nodes[name]
		labels := map[string]string{"kubernetes.io/os": n.OS, "kubernetes.io/hostname": n.Name}
		if sel != "" && sel != "kubernetes.io/os="+n.OS {
			continue
		}
		ready := n.Ready
		if ready == "" {
			ready = "True"
		}
		items = append(items, map[string]any{
			"metadata": map[string]any{"name": n.Name, "labels": labels},
			"status": map[string]any{
				"conditions": []map[string]string{{"type": "Ready", "status": ready, "reason": "KubeletNotReady"}},
				"nodeInfo":   map[string]string{"operatingSystem": n.OS, "kernelVersion": "10.0.20348.2340"},
			},
		})
	}
	json.NewEncoder(w).Encode(map[string]any{"kind": "NodeList", "items": items})
}

func (f *Server) createPod(w http.ResponseWriter, r *http.Request, ns string) {
	if f.Forbidden["create pods"] {
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
	time.Sleep(f.CreateDelay)
	f.mu.Lock()
	os := f.nodes[node].OS
	f.creates[os]++
	refuse := f.RefuseOS[os]
	if r := f.RefuseNode[node]; r != "" {
		refuse = r
	}
	f.mu.Unlock()
	if refuse != "" {
		f.status(w, http.StatusForbidden, refuse)
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.LoseCreateAnswers.Load() <= 0 && f.FailCreates.Add(-1) >= 0 {
		f.status(w, http.StatusServiceUnavailable, "etcd leader changed")
		return
	}
	if _, dup := f.pods[name]; dup {
		f.status(w, http.StatusConflict, "pods \""+name+"\" already exists")
		return
	}
	f.pods[name] = &fakePod{node: node, manifest: m, created: time.Now()}
	if f.LoseCreateAnswers.Add(-1) >= 0 {
		f.status(w, http.StatusServiceUnavailable, "the answer was lost")
		return
	}
	w.WriteHeader(http.StatusCreated)
	json.NewEncoder(w).Encode(m)
}

// snapshot is the pods matching a label selector, as the JSON objects a
// list or watch sends, by name; mu is held.
func (f *Server) snapshot(sel string) map[string]string {
	out := map[string]string{}
	k, v, _ := strings.Cut(sel, "=")
	for name, p := range f.pods {
		labels, _ := p.manifest["metadata"].(map[string]any)["labels"].(map[string]any)
		if p.deleted || labels[k] != v {
			continue
		}
		meta := map[string]any{"name": name, "labels": labels}
		if p.deleting {
			meta["deletionTimestamp"] = p.created.UTC().Format(time.RFC3339)
		}
		data, _ := json.Marshal(map[string]any{"metadata": meta, "spec": map[string]any{"nodeName": p.node}, "status": f.statusOf(p)})
		out[name] = string(data)
	}
	return out
}

func (f *Server) listPods(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("watch") == "true" || q.Get("watch") == "1" {
		f.watchPods(w, r)
		return
	}
	if f.Forbidden["list pods"] {
		f.status(w, http.StatusForbidden, `pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "diag"`)
		return
	}
	f.PodLists.Add(1)
	f.mu.Lock()
	snap := f.snapshot(q.Get("labelSelector"))
	f.version++
	rv := strconv.Itoa(f.version)
	if f.lists == nil {
		f.lists = map[string]map[string]string{}
	}
	f.lists[rv] = snap
	f.mu.Unlock()
	var items []json.RawMessage
	for _, obj := range snap {
		items = append(items, json.RawMessage(obj))
	}
	json.NewEncoder(w).Encode(map[string]any{"metadata": map[string]any{"resourceVersion": rv}, "items": items})
}

// watchPods sends the changes since the list of its resourceVersion, as
// ADDED, MODIFIED and DELETED events, until the client goes or the
// server's time for a watch ends.
func (f *Server) watchPods(w http.ResponseWriter, r *http.Request) {
	if f.Forbidden["watch pods"] || f.RefuseWatch.Load() {
		f.RefusedWatches.Add(1)
		f.status(w, http.StatusForbidden, `pods is forbidden: User "alice" cannot watch resource "pods" in API group "" in the namespace "diag"`)
		return
	}
	q := r.URL.Query()
	f.mu.Lock()
	prev := f.lists[q.Get("resourceVersion")]
	f.mu.Unlock()
	if prev == nil {
		prev = map[string]string{}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	enc := json.NewEncoder(w)
	end := time.After(5 * time.Second) // short, so that resuming is exercised
	for {
		f.mu.Lock()
		now := f.snapshot(q.Get("labelSelector"))
		f.mu.Unlock()
		for name, obj := range now {
			switch old, ok := prev[name]; {
			case !ok:
				enc.Encode(map[string]any{"type": "ADDED", "object": json.RawMessage(obj)})
			case old != obj:
				enc.Encode(map[string]any{"type": "MODIFIED", "object": json.RawMessage(obj)})
			}
		}
		for name, obj := range prev {
			if _, ok := now[name]; !ok {
				enc.Encode(map[string]any{"type": "DELETED", "object": json.RawMessage(obj)})
			}
		}
		prev = now
		if fl != nil {
			fl.Flush()
		}
		select {
		case <-r.Context().Done():
			return
		case <-end:
			return
		case <-time.After(5 * time.Millisecond):
		}
		if f.Gone.Load() || f.RefuseWatch.Load() {
			return
		}
	}
}

func (f *Server) getPod(w http.ResponseWriter, name string) {
	f.mu.Lock()
	p := f.pods[name]
	f.mu.Unlock()
	if p == nil || p.deleted {
		f.status(w, http.StatusNotFound, "pods \""+name+"\" not found")
		return
	}
	f.mu.Lock()
	st := f.statusOf(p)
	f.mu.Unlock()
	json.NewEncoder(w).Encode(map[string]any{"status": st})
}

// statusOf is a pod's status as its node's behaviour makes it.
func (f *Server) statusOf(p *fakePod) map[string]any {
	st := map[string]any{"phase": "Running"}
	switch f.nodes[p.node].Behave {
	case Crashed:
		st = map[string]any{"phase": "Failed", "containerStatuses": []any{map[string]any{"state": map[string]any{"terminated": map[string]any{
			"reason": "Error", "exitCode": 2, "message": "panic: boom\ngoroutine 1 [running]:\nmain.main()\n"}}}}}
	case SlowStart:
		if time.Since(p.created) < time.Second {
			st = map[string]any{"phase": "Pending", "containerStatuses": []any{map[string]any{"state": map[string]any{"waiting": map[string]any{"reason": "ContainerCreating"}}}}}
		}
	case NeverStarts:
		st = map[string]any{"phase": "Pending", "containerStatuses": []any{map[string]any{"state": map[string]any{"waiting": map[string]any{"reason": "ContainerCreating"}}}}}
	case ImagePull:
		st = map[string]any{"phase": "Pending", "containerStatuses": []any{map[string]any{"state": map[string]any{"waiting": map[string]any{
			"reason": "ImagePullBackOff", "message": `Back-off pulling image "registry.example/diag:v9"`}}}}}
	}
	return st
}

func (f *Server) exec(w http.ResponseWriter, r *http.Request, name string) {
	if f.Forbidden["create pods/exec"] {
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
	f.mu.Lock()
	f.Commands[name] = cmd
	f.mu.Unlock()
	if f.OnExec != nil {
		f.OnExec(name)
	}
	if !strings.Contains(strings.Join(cmd, " "), "collect --stream") {
		f.t.Errorf("exec %v: not diag collect --stream", cmd)
	}
	behave := f.nodes[p.node].Behave
	if behave == CutOnce && p.execs == 1 {
		behave = Cut
	}
	if wsstream.IsWebSocketRequest(r) && !f.NoWebSocket {
		f.execWebSocket(w, r, p, behave)
		return
	}
	if wsstream.IsWebSocketRequest(r) {
		// An API server from before WebSocket exec: the upgrade fails,
		// and client-go falls back to SPDY.
		f.status(w, http.StatusBadRequest, "unable to upgrade: websocket exec not supported")
		return
	}
	f.execSPDY(w, r, p, behave)
}

// execWebSocket serves an exec over v5.channel.k8s.io.
func (f *Server) execWebSocket(w http.ResponseWriter, r *http.Request, p *fakePod, behave string) {
	conn := wsstream.NewConn(map[string]wsstream.ChannelProtocolConfig{
		remotecommand.StreamProtocolV5Name: {Binary: true, Channels: []wsstream.ChannelType{
			wsstream.IgnoreChannel, wsstream.WriteChannel, wsstream.WriteChannel, wsstream.WriteChannel, wsstream.ReadChannel}},
	})
	conn.SetIdleTimeout(time.Minute)
	_, streams, err := conn.Open(w, r)
	if err != nil {
		// A server told to go closes its connections, an open in flight
		// among them: that is the scenario, not a fault of the fake.
		if !f.Gone.Load() {
			f.t.Errorf("websocket open: %v", err)
		}
		return
	}
	defer conn.Close()
	streams[1].Write(nil)
	f.play(p, behave, streams[1], streams[2], streams[3], r.Context().Done())
}

// execSPDY serves an exec over SPDY/3.1 (v4.channel.k8s.io), as API
// servers before WebSocket exec do: the client opens the error, stdout
// and stderr streams, the server writes and closes them.
func (f *Server) execSPDY(w http.ResponseWriter, r *http.Request, p *fakePod, behave string) {
	if _, err := httpstream.Handshake(r, w, []string{remotecommand.StreamProtocolV4Name}); err != nil {
		return
	}
	streams := make(chan httpstream.Stream, 8)
	conn := spdy.NewResponseUpgrader().UpgradeResponse(w, r, func(s httpstream.Stream, _ <-chan struct{}) error {
		streams <- s
		return nil
	})
	if conn == nil {
		return
	}
	defer conn.Close()
	byType := map[string]httpstream.Stream{}
	timeout := time.After(5 * time.Second)
	for len(byType) < 3 {
		select {
		case s := <-streams:
			byType[s.Headers().Get("streamType")] = s
		case <-timeout:
			f.t.Errorf("SPDY exec: streams %v", byType)
			return
		case <-conn.CloseChan():
			return
		}
	}
	stdout, stderr, errc := byType["stdout"], byType["stderr"], byType["error"]
	if stdout == nil || stderr == nil || errc == nil {
		f.t.Errorf("SPDY exec: streams %v", byType)
		return
	}
	gone := make(chan struct{})
	go func() {
		<-conn.CloseChan()
		close(gone)
	}()
	if f.play(p, behave, stdout, stderr, errc, gone) {
		stdout.Close()
		stderr.Close()
		errc.Close()
	}
}

// play is what the node's collector does on the exec's streams; false
// when the connection is to drop without a status.
func (f *Server) play(p *fakePod, behave string, stdout, stderr, errc io.Writer, gone <-chan struct{}) bool {
	// Counted from the first byte to just before the exit status: the
	// client cannot end its exec, and start another, before the status.
	n := f.running.Add(1)
	for {
		m := f.MaxRun.Load()
		if n <= m || f.MaxRun.CompareAndSwap(m, n) {
			break
		}
	}
	counted := true
	uncount := func() {
		if counted {
			f.running.Add(-1)
			counted = false
		}
	}
	defer uncount()
	status := errc
	errc = writerFunc(func(b []byte) (int, error) {
		uncount()
		return status.Write(b)
	})
	time.Sleep(f.ExecDelay)
	data := f.StreamFor(p.node)
	fmt.Fprintf(stderr, "kubernetes: credentials from in-cluster (HostProcess)\n")
	switch behave {
	case TextHang:
		io.WriteString(stdout, "Access is denied.\r\n")
		<-gone
		return false
	case Text:
		io.WriteString(stdout, "Error: unknown flag: --stream\r\n")
		io.WriteString(errc, `{"status":"Failure","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"2"}]}}`)
		return true
	case Hang:
		stdout.Write(data[:len(data)/2])
		<-gone
		return false
	case Cut:
		stdout.Write(data[:len(data)/2])
		return false // the connection drops without a status
	case Corrupt:
		data = bytes.Clone(data)
		data[len(data)/2] ^= 0xff
	}
	for len(data) > 0 {
		k := min(len(data), 32<<10)
		if _, err := stdout.Write(data[:k]); err != nil {
			return false
		}
		data = data[k:]
	}
	switch behave {
	case HangAfter:
		<-gone
		return false
	case Partial:
		io.WriteString(errc, `{"status":"Failure","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"3"}]}}`)
	default:
		io.WriteString(errc, `{"status":"Success"}`)
	}
	return true
}

// StreamFor is a node's framed bundle, made once: Bundle's, else a small
// real bundle (a manifest, one HNS file and 300 KB that do not compress,
// so that the stream has several chunks).
func (f *Server) StreamFor(node string) []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	if b, ok := f.bundles[node]; ok {
		return b
	}
	var zip []byte
	if f.Bundle != nil {
		zip = f.Bundle(node)
	} else {
		var err error
		if zip, err = smallBundle(f.t.TempDir(), node, f.nodes[node].OS); err != nil {
			f.t.Errorf("make a bundle for %s: %v", node, err)
			return nil
		}
	}
	f.bundles[node] = f.frame(zip)
	return f.bundles[node]
}

func smallBundle(dir, node, nodeOS string) ([]byte, error) {
	path := filepath.Join(dir, "b.zip")
	w, err := bundle.Create(path, manifest.Manifest{Node: node, OS: nodeOS})
	if err != nil {
		return nil, err
	}
	noise := make([]byte, 300<<10)
	for i := range noise {
		noise[i] = byte(i*7919 + len(node)*31 + i>>8)
	}
	if err := w.WriteFile("hns/v2/networks.json", []byte(`[{"ID":"1","Name":"flannel.4096","Type":"Overlay"}]`)); err != nil {
		return nil, err
	}
	if err := w.WriteFile("logs/noise.bin.txt", noise); err != nil {
		return nil, err
	}
	if _, err := w.Close(); err != nil {
		return nil, err
	}
	return os.ReadFile(path)
}

// Creates counts the pod creations asked for nodes of an OS.
func (f *Server) Creates(os string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.creates[os]
}

// Live are the pods not deleted.
func (f *Server) Live() []string {
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

type writerFunc func([]byte) (int, error)

func (w writerFunc) Write(b []byte) (int, error) { return w(b) }

// listEvents answers a field selector of type= and reason=, a page of
// two at a time (continue is the index of the next).
func (f *Server) listEvents(w http.ResponseWriter, r *http.Request) { f.listEventsIn(w, r, "") }

// listEventsIn lists the Events of a namespace ("": all) matching a field
// selector of type=, reason=, source=, involvedObject.kind= and
// involvedObject.name= (any other field is refused, as the API server
// refuses a field it does not index), limit= at a time (two without).
func (f *Server) listEventsIn(w http.ResponseWriter, r *http.Request, ns string) {
	want := map[string]string{}
	for _, kv := range strings.Split(r.URL.Query().Get("fieldSelector"), ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		switch k {
		case "type", "reason", "source", "involvedObject.kind", "involvedObject.name":
			want[k] = v
		default:
			f.status(w, http.StatusBadRequest, `"`+k+`" is not a known field selector: only "type", "reason", "source", "involvedObject.kind", "involvedObject.name" here`)
			return
		}
	}
	field := func(ev map[string]any, k string) string {
		switch k {
		case "type":
			if typ, _ := ev["type"].(string); typ != "" {
				return typ
			}
			return "Warning"
		case "source":
			src, _ := ev["source"].(map[string]any)
			c, _ := src["component"].(string)
			return c
		case "involvedObject.kind", "involvedObject.name":
			obj, _ := ev["involvedObject"].(map[string]any)
			v, _ := obj[strings.TrimPrefix(k, "involvedObject.")].(string)
			return v
		}
		v, _ := ev[k].(string)
		return v
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var match []map[string]any
	for _, ev := range f.Events {
		if meta, _ := ev["metadata"].(map[string]any); ns != "" && meta["namespace"] != ns {
			continue
		}
		ok := true
		for k, v := range want {
			ok = ok && field(ev, k) == v
		}
		if ok {
			match = append(match, ev)
		}
	}
	page := 2
	if n, err := strconv.Atoi(r.URL.Query().Get("limit")); err == nil && n > 0 {
		page = n
	}
	start, _ := strconv.Atoi(r.URL.Query().Get("continue"))
	end := min(start+page, len(match))
	next := ""
	if end < len(match) {
		next = strconv.Itoa(end)
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"metadata": map[string]string{"continue": next}, "items": match[min(start, end):end]})
}
