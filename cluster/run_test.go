package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/rest"

	"github.com/wincni/diag/cluster/clustertest"
)

func frame(zip []byte) []byte {
	var b bytes.Buffer
	if err := WriteStream(&b, bytes.NewReader(zip)); err != nil {
		panic(err)
	}
	return b.Bytes()
}

func newFake(t *testing.T, nodes ...clustertest.Node) *clustertest.Server {
	return clustertest.NewServer(t, frame, nodes...)
}

func apiFor(t *testing.T, f *clustertest.Server) *API {
	a, err := NewAPI(&rest.Config{Host: f.Srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	a.backoff = time.Millisecond
	return a
}

func options(t *testing.T, timeout time.Duration, parallel int) Options {
	return Options{Namespace: "diag", Image: "registry.example/diag:v9", Parallel: parallel, NodeTimeout: timeout,
		OutputDir: t.TempDir(), MaxBundle: 64 << 20, DeleteWait: 5 * time.Second}
}

func chooseAll(t *testing.T, f *clustertest.Server) []Choice {
	t.Helper()
	c, err := Choose(context.Background(), apiFor(t, f), Selection{}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func byName(rep *Report) map[string]NodeResult {
	out := map[string]NodeResult{}
	for _, n := range rep.Nodes {
		out[n.Name] = n
	}
	return out
}

// One run over nodes that each fail in their own way: every node gets its
// own status and reason, none holds up the others, the good bundles arrive
// whole and verified, and no pod is left.
func TestCollectEachNodeOnItsOwn(t *testing.T) {
	f := newFake(t,
		clustertest.Node{Name: "win-ok", OS: "windows", Behave: clustertest.OK},
		clustertest.Node{Name: "lin-ok", OS: "linux", Behave: clustertest.OK},
		clustertest.Node{Name: "win-partial", OS: "windows", Behave: clustertest.Partial},
		clustertest.Node{Name: "win-pending", OS: "windows", Behave: clustertest.NeverStarts},
		clustertest.Node{Name: "win-image", OS: "windows", Behave: clustertest.ImagePull},
		clustertest.Node{Name: "win-hang", OS: "windows", Behave: clustertest.Hang},
		clustertest.Node{Name: "win-cut", OS: "windows", Behave: clustertest.Cut},
		clustertest.Node{Name: "win-cut-once", OS: "windows", Behave: clustertest.CutOnce},
		clustertest.Node{Name: "win-corrupt", OS: "windows", Behave: clustertest.Corrupt},
		clustertest.Node{Name: "win-old", OS: "windows", Behave: clustertest.Text},
		clustertest.Node{Name: "win-down", OS: "windows", Ready: "Unknown", Behave: clustertest.OK},
	)
	// The hanging and never-starting nodes wait out this timeout; the
	// others must finish well inside it however loaded the machine is
	// (2 s was missed by a corrupt stream's retry on a machine running
	// five builds at once).
	o := options(t, 15*time.Second, 4)
	rep, err := Collect(context.Background(), apiFor(t, f), &Target{Context: "prod", Server: f.Srv.URL}, chooseAll(t, f), o)
	if err != nil {
		t.Fatal(err)
	}
	// No wall-clock bound (the machine's speed is not the code's): each
	// node's status below says whether it waited out its timeout.
	want := map[string][2]string{
		"win-ok":       {StatusOK, ""},
		"lin-ok":       {StatusOK, ""},
		"win-partial":  {StatusPartial, "manifest.json"},
		"win-pending":  {StatusTimeout, "the pod did not start (last seen Pending ContainerCreating)"},
		"win-image":    {StatusFailed, "ImagePullBackOff"},
		"win-hang":     {StatusTimeout, "--node-timeout 15s"},
		"win-cut":      {StatusFailed, "cut"},
		"win-cut-once": {StatusOK, ""},
		"win-corrupt":  {StatusFailed, "fails its checksum"},
		"win-old":      {StatusFailed, "unknown flag: --stream"},
		"win-down":     {StatusSkipped, "kubelet not reporting"},
	}
	got := byName(rep)
	for name, w := range want {
		g := got[name]
		if g.Status != w[0] || !strings.Contains(g.Reason, w[1]) {
			t.Errorf("%s: %s %q, want %s with %q", name, g.Status, g.Reason, w[0], w[1])
		}
		if g.Status == StatusOK || g.Status == StatusPartial {
			if err := verifyBundle(filepath.Join(o.OutputDir, g.Bundle)); err != nil || g.Bytes == 0 {
				t.Errorf("%s: bundle %s (%d bytes): %v", name, g.Bundle, g.Bytes, err)
			}
		} else if _, err := os.Stat(filepath.Join(o.OutputDir, bundleName(name))); err == nil {
			t.Errorf("%s: a bundle was kept for a failed node", name)
		}
	}
	if got["win-cut-once"].Attempts != 2 || got["win-corrupt"].Attempts != 2 {
		t.Errorf("a damaged stream is tried once more: %+v %+v", got["win-cut-once"], got["win-corrupt"])
	}
	if live := f.Live(); len(live) > 0 {
		t.Errorf("pods left behind: %v", live)
	}
	// Only the bundles and cluster.json: no .part files.
	entries, _ := os.ReadDir(o.OutputDir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "cluster.json lin-ok.zip win-cut-once.zip win-ok.zip win-partial.zip" {
		t.Errorf("output directory: %v", names)
	}
	var onDisk Report
	data, _ := os.ReadFile(filepath.Join(o.OutputDir, "cluster.json"))
	if err := json.Unmarshal(data, &onDisk); err != nil || len(onDisk.Nodes) != len(want) || onDisk.Context != "prod" || onDisk.Run == "" {
		t.Errorf("cluster.json: %v %s", err, data)
	}
}

// The pods are what the node needs: HostProcess as SYSTEM on Windows,
// privileged with the host's files on Linux; pinned by name, tolerating
// every taint, labelled for cleanup, ending themselves at a deadline.
func TestPodManifests(t *testing.T) {
	spec := PodSpec{Namespace: "diag", Image: "registry.example/diag:v9", Run: "abc123", Deadline: 7 * time.Minute}
	for _, n := range []Node{{Name: "akswin000001", OS: "windows"}, {Name: "Worker_1.example.com", OS: "linux"}} {
		data, err := spec.Manifest(n)
		if err != nil {
			t.Fatal(err)
		}
		// The manifest is a v1 Pod: every field has the API's name.
		var pod corev1.Pod
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&pod); err != nil {
			t.Fatalf("%s: not a v1 Pod: %v\n%s", n.Name, err, data)
		}
		s := pod.Spec
		if s.NodeName != n.Name || !s.HostNetwork || s.RestartPolicy != corev1.RestartPolicyNever || s.ActiveDeadlineSeconds == nil || *s.ActiveDeadlineSeconds != 420 ||
			len(s.Tolerations) != 1 || s.Tolerations[0].Operator != corev1.TolerationOpExists || s.ServiceAccountName != ServiceAccount {
			t.Errorf("%s: spec %+v", n.Name, s)
		}
		if pod.Labels[LabelManagedBy] != ManagedBy || pod.Labels[LabelRun] != "abc123" || len(pod.Name) > 63 || pod.Name != strings.ToLower(pod.Name) {
			t.Errorf("%s: metadata %+v", n.Name, pod.ObjectMeta)
		}
		c := s.Containers[0]
		if n.OS == "windows" {
			wo := s.SecurityContext.WindowsOptions
			if wo == nil || wo.HostProcess == nil || !*wo.HostProcess || *wo.RunAsUserName != `NT AUTHORITY\SYSTEM` || c.Command[0] != "cmd.exe" {
				t.Errorf("windows pod: %+v %v", s.SecurityContext, c.Command)
			}
		} else if sc := c.SecurityContext; sc == nil || sc.Privileged != nil || *sc.RunAsUser != 0 || !s.HostPID ||
			fmt.Sprint(sc.Capabilities.Drop, sc.Capabilities.Add) != "[ALL] [NET_RAW DAC_READ_SEARCH]" ||
			c.VolumeMounts[0].MountPath != "/host" || !c.VolumeMounts[0].ReadOnly || *c.VolumeMounts[0].RecursiveReadOnly != corev1.RecursiveReadOnlyIfPossible {
			t.Errorf("linux pod: %+v", c)
		}
		if strings.Join(c.Command[len(c.Command)-3:], " ") != "idle --for 7m0s" {
			t.Errorf("command %v", c.Command)
		}
	}
	if a, b := PodName("node-a", "r1"), PodName("node-b", "r1"); a == b || !strings.HasPrefix(a, "diag-node-a-") {
		t.Errorf("pod names %s %s", a, b)
	}
	for _, n := range []string{"", "-", "a..b", "Worker_1.Example.COM", strings.Repeat("x.", 120), "akswin000001"} {
		if errs := validation.IsDNS1123Label(PodName(n, NewRunID())); len(errs) > 0 {
			t.Errorf("pod name of %q: %v", n, errs)
		}
		if errs := validation.IsValidLabelValue(labelValue(n)); len(errs) > 0 {
			t.Errorf("label of %q: %v", n, errs)
		}
	}
	long := strings.Repeat("x", 80)
	if p := PodName(long, "r1"); len(p) > 63 || PodName(long+"y", "r1") == p {
		t.Errorf("long names: %s", p)
	}
}

// RBAC that refuses pods stops the run at the first node, with one line
// naming the verb and the resource.
func TestCollectPermissionDenied(t *testing.T) {
	for _, what := range []string{"create pods", "create pods/exec"} {
		var nodes []clustertest.Node
		for _, n := range []string{"w1", "w2", "w3", "w4", "w5", "w6"} {
			nodes = append(nodes, clustertest.Node{Name: n, OS: "windows", Behave: clustertest.OK})
		}
		f := newFake(t, nodes...)
		f.Forbidden[what] = true
		rep, err := Collect(context.Background(), apiFor(t, f), nil, chooseAll(t, f), options(t, 5*time.Second, 1))
		if err == nil || !strings.Contains(err.Error(), "permission denied to "+what) || !strings.Contains(err.Error(), "--print-rbac") {
			t.Fatalf("%s: %v", what, err)
		}
		if rep.Count(StatusCancelled) < 4 || rep.Stopped == "" {
			t.Errorf("%s: the run went on: %+v", what, rep.Nodes)
		}
		if live := f.Live(); len(live) > 0 {
			t.Errorf("%s: pods left: %v", what, live)
		}
	}
	f := newFake(t, clustertest.Node{Name: "w1", OS: "windows"})
	f.Forbidden["list nodes"] = true
	if _, err := Choose(context.Background(), apiFor(t, f), Selection{}, time.Now()); !IsForbidden(err) || !strings.Contains(err.Error(), "list nodes") {
		t.Errorf("list nodes: %v", err)
	}
}

// The API server gone mid-run: every node ends (failed or timeout) in
// bounded time, cluster.json is written, and the pods that could not be
// deleted are marked for --cleanup.
func TestCollectAPIServerGone(t *testing.T) {
	var nodes []clustertest.Node
	for _, n := range []string{"w1", "w2", "w3", "w4"} {
		nodes = append(nodes, clustertest.Node{Name: n, OS: "windows", Behave: clustertest.Hang})
	}
	f := newFake(t, nodes...)
	choices := chooseAll(t, f)
	// The server goes once every pod is made (an event, not a moment: the
	// test does not depend on the machine's speed).
	go func() {
		for len(f.Live()) < len(nodes) {
			time.Sleep(5 * time.Millisecond)
		}
		f.Gone.Store(true)
		f.Srv.CloseClientConnections()
	}()
	o := options(t, 2*time.Second, 4)
	rep, err := Collect(context.Background(), apiFor(t, f), nil, choices, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range rep.Nodes {
		if n.Status != StatusFailed && n.Status != StatusTimeout || !n.PodLeft {
			t.Errorf("%s: %s %q podLeft %v", n.Name, n.Status, n.Reason, n.PodLeft)
		}
	}
	if _, err := os.Stat(filepath.Join(o.OutputDir, "cluster.json")); err != nil {
		t.Error(err)
	}
}

// Ctrl-C: no new node starts, the running ones stop, their pods go, and
// cluster.json says so.
func TestCollectCancelled(t *testing.T) {
	var nodes []clustertest.Node
	for _, n := range []string{"w1", "w2", "w3", "w4", "w5"} {
		nodes = append(nodes, clustertest.Node{Name: n, OS: "windows", Behave: clustertest.Hang})
	}
	f := newFake(t, nodes...)
	ctx, cancel := context.WithCancelCause(context.Background())
	time.AfterFunc(300*time.Millisecond, func() { cancel(context.Canceled) })
	rep, err := Collect(ctx, apiFor(t, f), nil, chooseAll(t, f), options(t, time.Minute, 2))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Count(StatusCancelled) != 5 || rep.Stopped == "" {
		t.Errorf("%+v", rep)
	}
	if live := f.Live(); len(live) > 0 {
		t.Errorf("pods left: %v", live)
	}
}

// 200 nodes, 10 at a time: all arrive, never more than 10 streams at once,
// in bounded time and memory.
func TestCollect200Nodes(t *testing.T) {
	if testing.Short() {
		t.Skip("200 nodes")
	}
	var nodes []clustertest.Node
	for i := range 200 {
		os := "windows"
		if i%5 == 0 {
			os = "linux"
		}
		nodes = append(nodes, clustertest.Node{Name: fmt.Sprintf("node-%03d", i), OS: os, Behave: clustertest.OK})
	}
	f := newFake(t, nodes...)
	f.ExecDelay = 30 * time.Millisecond
	choices := chooseAll(t, f)
	for _, n := range nodes {
		f.StreamFor(n.Name) // made before the clock starts
	}
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	rep, err := Collect(context.Background(), apiFor(t, f), nil, choices, options(t, 30*time.Second, 10))
	if err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	if rep.Count(StatusOK) != 200 {
		t.Fatalf("%d ok", rep.Count(StatusOK))
	}
	if m := f.MaxRun.Load(); m != 10 {
		t.Errorf("%d streams at once", m)
	}
	t.Logf("200 nodes in %v", elapsed)
	// Bundles go to disk as they arrive: the heap holds a few streams'
	// buffers, not 200 bundles (each ~300 KB, 60 MB together).
	if grew := int64(after.HeapInuse) - int64(before.HeapInuse); grew > 40<<20 {
		t.Errorf("heap grew by %d MB", grew>>20)
	}
	t.Logf("200 nodes, 10 at a time: %v, %d streams at most at once", elapsed, f.MaxRun.Load())
}

// A 503 now and then is tried again; the API server's answer is used.
func TestTransientErrorsRetried(t *testing.T) {
	f := newFake(t, clustertest.Node{Name: "w1", OS: "windows"}, clustertest.Node{Name: "l1", OS: "linux"})
	f.Unavail.Store(3)
	c, err := Choose(context.Background(), apiFor(t, f), Selection{WindowsOnly: true}, time.Now())
	if err != nil || len(c) != 1 || c[0].Node.Name != "w1" {
		t.Fatalf("%v %+v", err, c)
	}
	f.Unavail.Store(10)
	if _, err := Choose(context.Background(), apiFor(t, f), Selection{}, time.Now()); err == nil || !strings.Contains(err.Error(), "503") {
		t.Errorf("a lasting 503: %v", err)
	}
}

func TestChooseNodes(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	f := newFake(t,
		clustertest.Node{Name: "lin-1", OS: "linux"}, clustertest.Node{Name: "lin-2", OS: "linux"},
		clustertest.Node{Name: "win-1", OS: "windows"}, clustertest.Node{Name: "win-2", OS: "windows"},
		clustertest.Node{Name: "win-3", OS: "windows", Ready: "False"}, clustertest.Node{Name: "win-4", OS: "windows"},
		clustertest.Node{Name: "win-5", OS: "windows", Ready: "Unknown"},
	)
	f.Events = []map[string]any{
		{"reason": "FailedCreatePodSandBox", "lastTimestamp": now.Add(-10 * time.Minute), "source": map[string]string{"host": "win-4"}},
		{"reason": "FailedCreatePodSandBox", "lastTimestamp": now.Add(-3 * time.Hour), "source": map[string]string{"host": "win-2"}},
		{"reason": "BackOff", "lastTimestamp": now, "source": map[string]string{"host": "win-1"}},
		// New-style events name the node as the reporting instance; more
		// than a page of them.
		{"reason": "FailedCreatePodSandBox", "eventTime": now.Add(-5 * time.Minute), "reportingInstance": "win-4"},
		{"reason": "FailedCreatePodSandBox", "eventTime": now.Add(-4 * time.Minute), "reportingInstance": "win-4"},
		{"reason": "FailedCreatePodSandBox", "type": "Normal", "lastTimestamp": now, "source": map[string]string{"host": "win-2"}},
	}
	api := apiFor(t, f)
	names := func(cs []Choice) string {
		var out []string
		for _, c := range cs {
			s := c.Node.Name
			if c.Skip != "" {
				s += "(skip)"
			}
			out = append(out, s)
		}
		return strings.Join(out, " ")
	}
	auto, err := Choose(context.Background(), api, Selection{Auto: true}, now)
	if err != nil {
		t.Fatal(err)
	}
	// The NotReady and the sandbox-failing Windows nodes, then one healthy
	// Windows node and one Linux node; win-5's kubelet is not reporting.
	if got := names(auto); got != "win-3 win-4 win-5(skip) win-1 lin-1" {
		t.Errorf("auto: %s", got)
	}
	for _, c := range auto {
		if c.Why == "" {
			t.Errorf("%s: no reason it was chosen", c.Node.Name)
		}
		if c.Node.Name == "win-4" && !strings.Contains(c.Why, "3 pod sandbox failure") {
			t.Errorf("win-4: %s", c.Why)
		}
	}
	named, _ := Choose(context.Background(), api, Selection{Names: []string{"win-2", "nope"}}, now)
	if got := names(named); got != "win-2 nope(skip)" {
		t.Errorf("named: %s", got)
	}
	win, _ := Choose(context.Background(), api, Selection{WindowsOnly: true}, now)
	if got := names(win); got != "win-1 win-2 win-3 win-4 win-5(skip)" {
		t.Errorf("windows only: %s", got)
	}
}

func TestCleanupLeftovers(t *testing.T) {
	f := newFake(t, clustertest.Node{Name: "w1", OS: "windows"})
	api := apiFor(t, f)
	spec := PodSpec{Namespace: "diag", Image: "x", Run: "old1", Deadline: time.Minute}
	m, _ := spec.Manifest(Node{Name: "w1", OS: "windows"})
	if err := api.CreatePod(context.Background(), "diag", m); err != nil {
		t.Fatal(err)
	}
	rep, err := Cleanup(context.Background(), api, "diag", false, 5*time.Second)
	if err != nil || len(rep.Found) != 1 || len(rep.Deleted) != 1 || len(f.Live()) != 0 {
		t.Errorf("%+v %v %v", rep, err, f.Live())
	}
}

// A pod creation whose answer was lost is tried again and finds the pod:
// the run goes on with it.
func TestCreateAnswerLost(t *testing.T) {
	f := newFake(t, clustertest.Node{Name: "w1", OS: "windows", Behave: clustertest.OK})
	f.LoseCreateAnswers.Store(1)
	rep, err := Collect(context.Background(), apiFor(t, f), nil, chooseAll(t, f), options(t, 5*time.Second, 1))
	if err != nil || rep.Nodes[0].Status != StatusOK {
		t.Errorf("%v %+v", err, rep.Nodes)
	}
}

// Lost and refused answers, retries, the bundle's size and status, the
// exec transport: how the collection holds when the server misbehaves.

// A create whose answer was lost and whose retries then fail: the pod
// exists, so it is deleted all the same.
func TestCreateLostThenFailing(t *testing.T) {
	f := newFake(t, clustertest.Node{Name: "w1", OS: "windows", Behave: clustertest.OK})
	choices := chooseAll(t, f)
	f.LoseCreateAnswers.Store(1)
	f.FailCreates.Store(100)
	rep, err := Collect(context.Background(), apiFor(t, f), nil, choices, options(t, 5*time.Second, 1))
	if err != nil || rep.Nodes[0].Status != StatusFailed || !strings.Contains(rep.Nodes[0].Reason, "503") {
		t.Errorf("%v %+v", err, rep.Nodes)
	}
	if live := f.Live(); len(live) > 0 {
		t.Errorf("pod left: %v", live)
	}
}

// A bundle larger than --max-bundle-size ends the transfer at once: the
// node fails for that, not for its timeout.
func TestTooLargeStopsTheTransfer(t *testing.T) {
	f := newFake(t, clustertest.Node{Name: "w1", OS: "windows", Behave: clustertest.Hang})
	o := options(t, 10*time.Second, 1)
	o.MaxBundle = 1000
	start := time.Now()
	rep, _ := Collect(context.Background(), apiFor(t, f), nil, chooseAll(t, f), o)
	// Failed for its size, not timed out: the transfer stopped at once.
	if n := rep.Nodes[0]; n.Status != StatusFailed || !strings.Contains(n.Reason, "too large") || n.Attempts != 1 {
		t.Errorf("%+v after %v", n, time.Since(start))
	}
}

// The whole bundle arrived, its exit status never does: the bundle is kept,
// as partial, after a grace period.
func TestWholeBundleWithoutStatus(t *testing.T) {
	defer func(g time.Duration) { statusGrace = g }(statusGrace)
	statusGrace = 200 * time.Millisecond
	f := newFake(t, clustertest.Node{Name: "w1", OS: "windows", Behave: clustertest.HangAfter})
	o := options(t, 10*time.Second, 1)
	rep, _ := Collect(context.Background(), apiFor(t, f), nil, chooseAll(t, f), o)
	n := rep.Nodes[0]
	if n.Status != StatusPartial || !strings.Contains(n.Reason, "exit status") || verifyBundle(filepath.Join(o.OutputDir, n.Bundle)) != nil {
		t.Errorf("%+v", n)
	}
}

// Only a cut or corrupted stream is tried again: an old diag that prints
// text, or a refusal, is the node's answer at once.
func TestWhatIsRetried(t *testing.T) {
	f := newFake(t,
		clustertest.Node{Name: "old", OS: "windows", Behave: clustertest.Text},
		clustertest.Node{Name: "cut", OS: "windows", Behave: clustertest.Cut},
		clustertest.Node{Name: "bad", OS: "windows", Behave: clustertest.Corrupt})
	rep, _ := Collect(context.Background(), apiFor(t, f), nil, chooseAll(t, f), options(t, 5*time.Second, 3))
	got := byName(rep)
	if got["old"].Attempts != 1 || got["cut"].Attempts != 2 || got["bad"].Attempts != 2 {
		t.Errorf("attempts: old %d, cut %d, corrupt %d", got["old"].Attempts, got["cut"].Attempts, got["bad"].Attempts)
	}
}

// A refusal to read or delete the pods is the same for every node too:
// reading stops the run; deleting leaves pods that the report names.
func TestGetAndDeleteRefused(t *testing.T) {
	nodes := []clustertest.Node{{Name: "w1", OS: "windows"}, {Name: "w2", OS: "windows"}, {Name: "w3", OS: "windows"}, {Name: "w4", OS: "windows"}}
	f := newFake(t, nodes...)
	f.Forbidden["watch pods"] = true
	rep, err := Collect(context.Background(), apiFor(t, f), nil, chooseAll(t, f), options(t, 5*time.Second, 1))
	if !StopsRun(err) || !strings.Contains(err.Error(), "permission denied to watch pods") || rep.Count(StatusCancelled) != 3 || len(f.Live()) != 0 {
		t.Errorf("get refused: %v %+v", err, rep.Nodes)
	}
	f = newFake(t, nodes[:2]...)
	f.Forbidden["delete pods"] = true
	rep, err = Collect(context.Background(), apiFor(t, f), nil, chooseAll(t, f), options(t, 5*time.Second, 2))
	if err != nil || rep.Count(StatusOK) != 2 || len(rep.PodsLeft()) != 2 {
		t.Errorf("delete refused: %v %+v", err, rep.Nodes)
	}
}

// A node name that looks like an HTTP status is no permission error.
func TestNoPermissionErrorByChance(t *testing.T) {
	f := newFake(t, clustertest.Node{Name: "akswin000403", OS: "windows", Behave: clustertest.Text},
		clustertest.Node{Name: "akswin000404", OS: "windows", Behave: clustertest.OK})
	rep, err := Collect(context.Background(), apiFor(t, f), nil, chooseAll(t, f), options(t, 5*time.Second, 1))
	if err != nil || rep.Nodes[1].Status != StatusOK {
		t.Errorf("%v %+v", err, rep.Nodes)
	}
}

func TestDuplicateNamesOnce(t *testing.T) {
	f := newFake(t, clustertest.Node{Name: "w1", OS: "windows"})
	c, err := Choose(context.Background(), apiFor(t, f), Selection{Names: []string{"w1", "w1"}}, time.Now())
	if err != nil || len(c) != 1 {
		t.Errorf("%v %+v", err, c)
	}
}

// A throttling server's Retry-After is waited for, but never past the
// caller's deadline.
func TestRetryAfterHonoursContext(t *testing.T) {
	f := newFake(t, clustertest.Node{Name: "w1", OS: "windows"})
	f.Unavail.Store(100)
	f.RetryAfter = "10"
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	// Interrupted by the deadline while waiting, not the 503 after every
	// Retry-After was waited out.
	if _, err := Choose(ctx, apiFor(t, f), Selection{}, time.Now()); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("%v after %v", err, time.Since(start))
	}
}

// diag collect in the pod gets the node's time that is left once the pod
// runs, not the whole of it.
func TestCollectTimeoutIsWhatIsLeft(t *testing.T) {
	f := newFake(t, clustertest.Node{Name: "w1", OS: "windows", Behave: clustertest.SlowStart})
	rep, err := Collect(context.Background(), apiFor(t, f), nil, chooseAll(t, f), options(t, 8*time.Second, 1))
	if err != nil || rep.Nodes[0].Status != StatusOK {
		t.Fatalf("%v %+v", err, rep.Nodes)
	}
	for _, cmd := range f.Commands {
		args := strings.Join(cmd, " ")
		// 8 s less about 1 s of Pending, less a quarter: 5 s.
		if !strings.Contains(args, "--timeout 5s") {
			t.Errorf("%s", args)
		}
	}
}

// A retry goes without --capture: the first attempt's collection may still
// hold the node's capture session. The bundle says so.
func TestRetryWithoutCapture(t *testing.T) {
	f := newFake(t, clustertest.Node{Name: "w1", OS: "windows", Behave: clustertest.CutOnce})
	o := options(t, 10*time.Second, 1)
	o.Capture = time.Second
	rep, err := Collect(context.Background(), apiFor(t, f), nil, chooseAll(t, f), o)
	n := rep.Nodes[0]
	if err != nil || n.Status != StatusPartial || n.Attempts != 2 || !strings.Contains(n.Reason, "without --capture") {
		t.Fatalf("%v %+v", err, n)
	}
	if cmd := strings.Join(f.Commands[n.Pod], " "); strings.Contains(cmd, "--capture") {
		t.Errorf("the retry ran %s", cmd)
	}
}

// An API server without WebSocket exec (before Kubernetes 1.30): the
// collection falls back to SPDY, as kubectl does, and every behaviour
// reads the same.
func TestSPDYFallback(t *testing.T) {
	f := newFake(t,
		clustertest.Node{Name: "ok", OS: "windows", Behave: clustertest.OK},
		clustertest.Node{Name: "partial", OS: "linux", Behave: clustertest.Partial},
		clustertest.Node{Name: "corrupt", OS: "windows", Behave: clustertest.Corrupt},
		clustertest.Node{Name: "cut-once", OS: "windows", Behave: clustertest.CutOnce},
		clustertest.Node{Name: "old", OS: "windows", Behave: clustertest.Text})
	f.NoWebSocket = true
	o := options(t, 5*time.Second, 5)
	rep, err := Collect(context.Background(), apiFor(t, f), nil, chooseAll(t, f), o)
	if err != nil {
		t.Fatal(err)
	}
	got := byName(rep)
	for name, want := range map[string]string{"ok": StatusOK, "partial": StatusPartial, "corrupt": StatusFailed, "cut-once": StatusOK, "old": StatusFailed} {
		if got[name].Status != want {
			t.Errorf("%s: %s %q, want %s", name, got[name].Status, got[name].Reason, want)
		}
	}
	if err := verifyBundle(filepath.Join(o.OutputDir, got["ok"].Bundle)); err != nil {
		t.Error(err)
	}
	if !strings.Contains(got["old"].Reason, "unknown flag") {
		t.Errorf("old: %q", got["old"].Reason)
	}
}

// Streams that stop, fail their checksum or outlast the node's timeout.

// A short message and then nothing is no stream, said at once, not at the
// node's timeout; a stream that fails its checksum is reported as that,
// not as the exec we cancelled; a pod that crashed with a stack in its
// message gets a one-line reason.
func TestFailuresSaidAtOnceAndOnOneLine(t *testing.T) {
	f := newFake(t,
		clustertest.Node{Name: "denied", OS: "windows", Behave: clustertest.TextHang},
		clustertest.Node{Name: "bad", OS: "windows", Behave: clustertest.Corrupt},
		clustertest.Node{Name: "crashed", OS: "windows", Behave: clustertest.Crashed})
	start := time.Now()
	rep, _ := Collect(context.Background(), apiFor(t, f), nil, chooseAll(t, f), options(t, 10*time.Second, 3))
	got := byName(rep)
	// Failed, not timed out: said at once.
	if n := got["denied"]; n.Status != StatusFailed || !strings.Contains(n.Reason, `printed "Access is denied."`) {
		t.Errorf("denied: %+v after %v", n, time.Since(start))
	}
	if n := got["bad"]; !strings.HasPrefix(n.Reason, "bundle stream corrupt") || strings.Contains(n.Reason, "canceled") {
		t.Errorf("bad: %q", n.Reason)
	}
	if n := got["crashed"]; n.Status != StatusFailed || strings.Contains(n.Reason, "\n") || !strings.Contains(n.Reason, "panic: boom | goroutine 1") {
		t.Errorf("crashed: %q", n.Reason)
	}
}

// The node's time ends while a whole bundle's exit status is awaited: the
// bundle is kept, as partial.
func TestWholeBundleKeptAtTimeout(t *testing.T) {
	f := newFake(t, clustertest.Node{Name: "w1", OS: "windows", Behave: clustertest.HangAfter})
	o := options(t, time.Second, 1)
	rep, _ := Collect(context.Background(), apiFor(t, f), nil, chooseAll(t, f), o)
	n := rep.Nodes[0]
	if n.Status != StatusPartial || !strings.Contains(n.Reason, "ended before the collector's exit status") || verifyBundle(filepath.Join(o.OutputDir, n.Bundle)) != nil {
		t.Errorf("%+v", n)
	}
}
