package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/wincni/diag/bundle"
	"github.com/wincni/diag/cluster"
	"github.com/wincni/diag/cluster/clustertest"
	"github.com/wincni/diag/manifest"
)

// bundleOf makes a bundle zip, checksums and all, of a bundle directory of
// the repository.
// testImage names the collector image in tests: a source build has no
// default (no image of it was published).
const testImage = "registry.example/diag:test"

func bundleOf(t *testing.T, dir string) []byte {
	t.Helper()
	src, err := bundle.Open(dir, bundle.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	out := filepath.Join(t.TempDir(), "b.zip")
	w, err := bundle.Create(out, manifest.Manifest{Node: src.Manifest.Node, OS: src.Manifest.OS})
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "manifest.json" || d.Name() == "expect" {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		return w.WriteFile(filepath.ToSlash(rel), data)
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func frameBundle(zip []byte) []byte {
	var b bytes.Buffer
	if err := cluster.WriteStream(&b, bytes.NewReader(zip)); err != nil {
		panic(err)
	}
	return b.Bytes()
}

func fakeKubeconfig(t *testing.T, server string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config")
	cfg := `apiVersion: v1
kind: Config
clusters:
- name: fake
  cluster: {server: "` + server + `"}
contexts:
- name: fake-admin
  context: {cluster: fake, user: admin}
current-context: fake-admin
users:
- name: admin
  user: {token: not-a-real-token}
`
	if err := os.WriteFile(p, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// One command for a cluster: the Windows node's and the Linux node's
// bundles arrive through their pods, the third node's pod never starts, and
// the report is the analysis of both bundles together.
func TestCollectClusterEndToEnd(t *testing.T) {
	broken := bundleOf(t, "../../testdata/bundles/seed-broken")
	linux := bundleOf(t, "../../testdata/bundles/seed-linux-controlplane")
	f := clustertest.NewServer(t, frameBundle,
		clustertest.Node{Name: "winw1", OS: "windows", Behave: clustertest.OK},
		clustertest.Node{Name: "controlplane", OS: "linux", Behave: clustertest.OK},
		clustertest.Node{Name: "winw2", OS: "windows", Behave: clustertest.ImagePull},
	)
	f.Bundle = func(node string) []byte {
		if node == "controlplane" {
			return linux
		}
		return broken
	}
	dir := filepath.Join(t.TempDir(), "out")
	r := runDiag(t, nil, false, "collect", "--cluster", "--image", testImage, "--kubeconfig", fakeKubeconfig(t, f.Srv.URL), "--output-dir", dir,
		"-o", "json", "--node-timeout", "20s", "--parallel", "3", "--skip", "logs")
	if r.code != 3 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	var rep struct {
		Findings []struct {
			ID, Node string
		} `json:"findings"`
		Inputs []struct {
			Node string `json:"node"`
		} `json:"inputs"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, r.stdout)
	}
	ids := ""
	for _, fd := range rep.Findings {
		ids += fd.ID + "@" + fd.Node + " "
	}
	// The Windows node's overlay on the wrong adapter, and the cross-node
	// rules that need both nodes' bundles.
	if !strings.Contains(ids, "OVL-01@winw1") || !strings.Contains(ids, "XN-03@cluster") || len(rep.Inputs) != 2 {
		t.Errorf("findings %s, inputs %+v", ids, rep.Inputs)
	}
	for _, want := range []string{"fake-admin", "winw2: failed: the collector pod cannot start: ImagePullBackOff", "2 ok, 0 partial, 1 failed", filepath.Join(dir, "cluster.json")} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	for _, name := range []string{"winw1.zip", "controlplane.zip", "cluster.json"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
	if live := f.Live(); len(live) > 0 {
		t.Errorf("pods left: %v", live)
	}
	// diag collect in the pod gets what is left of the node's 20 s, less a
	// quarter for the transfer; the collect flags given pass through.
	want := regexp.MustCompile(`^(cmd\.exe /c %CONTAINER_SANDBOX_MOUNT_POINT%\\diag\.exe|diag) collect --stream --timeout 1[0-4]s --skip logs$`)
	for pod, cmd := range f.Commands {
		if got := strings.Join(cmd, " "); !want.MatchString(got) || strings.Contains(pod, "controlplane") != strings.HasPrefix(got, "diag ") {
			t.Errorf("%s ran %q", pod, got)
		}
	}
}

func TestCollectClusterFlags(t *testing.T) {
	for _, c := range []struct{ args, want string }{
		{"collect --nodes a,b", "--nodes is a flag of diag collect --cluster"},
		{"collect --cluster -o yaml", "-o must be one of"},
		{"collect --cluster -o json --report json", "give --output only"},
		{"collect --cluster --output-file a --report-file b", "give --output-file only"},
		{"collect --cluster --nodes auto,win-1", "--nodes auto chooses the nodes itself"},
		{"collect --cluster --node-timeout 0s", "--node-timeout must be a positive duration"},
		{"collect --cluster --capture 20m", "does not fit in --node-timeout"},
		{"collect --cluster --image " + testImage + " --kubeconfig /nonexistent/config", "kubeconfig /nonexistent/config"},
		{"collect --cluster --nodes a", "--image is needed: this diag"},
	} {
		r := runDiag(t, nil, false, strings.Fields(c.args)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("%s: exit %d %q", c.args, r.code, r.stderr)
		}
	}
	// A server that does not answer: exit 2 and the context it came from.
	if r := runDiag(t, nil, false, "collect", "--cluster", "--image", testImage, "--kubeconfig", fakeKubeconfig(t, "http://127.0.0.1:9")); r.code != 2 || !strings.Contains(r.stderr, "API server unreachable") || !strings.Contains(r.stderr, "fake-admin") {
		t.Errorf("unreachable: exit %d %q", r.code, r.stderr)
	}
	// The first spellings of -o and --output-file still work, and say so.
	if r := runDiag(t, nil, false, "collect", "--cluster", "--report", "yaml"); r.code != 2 || !strings.Contains(r.stderr, "--report is deprecated, use --output") || !strings.Contains(r.stderr, "-o must be one of") {
		t.Errorf("--report: exit %d %q", r.code, r.stderr)
	}
	r := runDiag(t, nil, false, "collect", "--cluster", "--print-rbac")
	if r.code != 0 || r.stdout != cluster.RBAC {
		t.Errorf("--print-rbac: exit %d", r.code)
	}
}

// RBAC refusing pods: exit 2 and a line naming the verb and the resource.
func TestCollectClusterRBACDenied(t *testing.T) {
	f := clustertest.NewServer(t, frameBundle, clustertest.Node{Name: "w1", OS: "windows"}, clustertest.Node{Name: "w2", OS: "windows"})
	f.Forbidden["create pods"] = true
	r := runDiag(t, nil, false, "collect", "--cluster", "--image", testImage, "--kubeconfig", fakeKubeconfig(t, f.Srv.URL), "--output-dir", t.TempDir())
	last := strings.TrimSpace(r.stderr)
	last = last[strings.LastIndex(last, "\n")+1:]
	if r.code != 2 || !strings.Contains(last, "permission denied to create pods") || !strings.Contains(last, "--print-rbac") {
		t.Errorf("exit %d, last line %q", r.code, last)
	}
}

// diag collect --stream, what each collector pod runs: stdout is the
// framed bundle and nothing else, and it arrives whole.
func TestCollectStream(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("collects this Linux host's os")
	}
	r := runDiag(t, nil, false, "collect", "--stream", "--only", "os")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var zip bytes.Buffer
	if _, err := cluster.ReadStream(strings.NewReader(r.stdout), &zip, 64<<20); err != nil {
		t.Fatal(err)
	}
	b, err := bundle.OpenBytes("stream", zip.Bytes(), bundle.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if problems, err := bundle.Verify(b); err != nil || len(problems) > 0 || !b.Has("host/os.json") {
		t.Errorf("verify: %v %v, names %v", problems, err, b.Names())
	}
	if r := runDiag(t, nil, false, "collect", "--stream", "--output-file", "x.zip"); r.code != 2 {
		t.Errorf("--stream with --output-file: exit %d", r.code)
	}
}

func TestHostRootFS(t *testing.T) {
	host := t.TempDir()
	os.MkdirAll(filepath.Join(host, "etc"), 0o755)
	os.WriteFile(filepath.Join(host, "etc", "os-release"), []byte("ID=host\n"), 0o644)
	t.Setenv("DIAG_HOST_ROOT", host)
	if runtime.GOOS == "windows" {
		t.Skip("Linux pods only")
	}
	fsys := rootFS()
	if data, err := fs.ReadFile(fsys, "etc/os-release"); err != nil || string(data) != "ID=host\n" {
		t.Errorf("host file: %q %v", data, err)
	}
	if runtime.GOOS == "linux" {
		if _, err := fs.ReadDir(fsys, "proc"); err != nil {
			t.Errorf("proc: %v", err)
		}
	}
}

// Without credentials the message names diag's ways to give them, not
// client-go's KUBERNETES_MASTER; diag --version prints the version.
func TestClusterNoCredentialsAndVersionFlag(t *testing.T) {
	t.Setenv("KUBECONFIG", "")
	t.Setenv("HOME", t.TempDir())
	r := runDiag(t, nil, false, "collect", "--cluster", "--image", testImage)
	if r.code != 2 || strings.Contains(r.stderr, "KUBERNETES_MASTER") || !strings.Contains(r.stderr, "no Kubernetes credentials") {
		t.Errorf("exit %d %q", r.code, r.stderr)
	}
	if r := runDiag(t, nil, false, "--version"); r.code != 0 || !strings.HasPrefix(r.stdout, "diag ") {
		t.Errorf("--version: %d %q", r.code, r.stdout)
	}
}
