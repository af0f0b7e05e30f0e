package collectors

import (
	"archive/zip"
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wincni/diag/analyzers"
	"github.com/wincni/diag/bundle"
	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/formats"
	"github.com/wincni/diag/manifest"
	"github.com/wincni/diag/snapshot"
)

func collectFake(t testing.TB, f *fakeWindowsNode) (*bundle.Bundle, string) {
	w, path := newTestWriterTB(t)
	if !Run(context.Background(), w, f.env(), WindowsCollectors(), RunOptions{Parallel: 4}) {
		t.Log("run not complete")
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := bundle.Open(path, bundle.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	// Closed before the temporary directory is removed: Windows refuses
	// to delete a file still open.
	t.Cleanup(func() { b.Close() })
	return b, path
}

// A busy Windows node (300 endpoints, 100 VFP ports) gives the whole
// Windows layout of DESIGN.md, every collector ok, and a bundle that
// analyzes as the healthy node it is.
func TestWindowsBusyNodeBundle(t *testing.T) {
	f := newFakeWindowsNode(t, 11, 100, 100, 2*time.Millisecond)
	b, _ := collectFake(t, f)
	if problems, err := bundle.Verify(b); err != nil || len(problems) > 0 {
		t.Fatalf("verify: %v %v", problems, err)
	}
	for _, r := range b.Manifest.Collectors {
		if r.Status != manifest.StatusOK {
			t.Errorf("collector %s: %s %s", r.ID, r.Status, r.Error)
		}
	}
	want := []string{
		"hns/v2/networks.json", "hns/v2/endpoints.json", "hns/v2/loadbalancers.json", "hns/v2/namespaces.json", "hns/v2/routes.json", "hns/v2/globals.json",
		"hns/v2/features.json",
		"hns/v2/detailed/networks.json", "hns/v2/detailed/endpoints.json",
		"hns/v1/networks.json", "hns/v1/endpoints.json", "hns/v1/policylists.json",
		"vfp/ports.txt", "host/adapters.json", "host/routes.json", "host/firewall.json", "host/os.json", "host/portranges.json",
		"config/kube-proxy/cmdline.txt", "config/cni/10-flannel.conf", "config/cni/calico-kubeconfig", "config/flannel/net-conf.json",
		"config/flannel/subnet.env", "config/calico/config.ps1", "config/node/kubeclusterconfig.json",
		"logs/kube-proxy/kube-proxy.log", "logs/cni/azure-vnet.log", "logs/flannel/flanneld.log", "logs/calico/calico-node.log", "diag.log",
		"logs/kubelet/kubelet.log", "logs/containerd/containerd.log",
		"events/hns.json",
	}
	for i := range 100 {
		want = append(want, "vfp/port-"+portName(i)+".txt")
	}
	for _, name := range want {
		if !b.Has(name) {
			t.Errorf("bundle lacks %s", name)
		}
	}
	if b.Has("logs/calico/old.log.gz") {
		t.Error("a compressed log was stored")
	}
	if fe, _ := b.Manifest.File("logs/kube-proxy/kube-proxy.log"); !fe.Truncated || fe.Size > 16<<10 {
		t.Errorf("kube-proxy log not tailed to 16 KiB: %+v", fe)
	}

	s, err := formats.Load(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.VFPPorts) != 100 || len(s.Endpoints) < 300 || len(s.Networks) != 1 {
		t.Fatalf("snapshot: %d VFP ports, %d endpoints, %d networks", len(s.VFPPorts), len(s.Endpoints), len(s.Networks))
	}
	for _, p := range s.VFPPorts {
		if p.Blocked == nil || len(p.Layers) == 0 || p.Counters["OUT Total packets"] != 100 {
			t.Fatalf("port %s not fully dumped: %+v", p.Name, p)
		}
	}
	t.Logf("snapshot: %d endpoints, %d load balancers, %d VFP ports", len(s.Endpoints), len(s.LoadBalancers), len(s.VFPPorts))
	res := analyzers.Run([]*snapshot.Snapshot{s}, analyzers.Selection{})
	t.Logf("%d findings, %d skipped", len(res.Findings), len(res.Skipped))
	for _, fd := range res.Findings {
		if fd.Severity >= finding.Warn {
			t.Errorf("%s %s: %s", fd.Severity, fd.ID, fd.Summary)
		}
	}
}

// No planted secret, in any configuration file, log or command output,
// reaches the zip; the manifest says what was redacted.
func TestNoSecretLeavesTheNode(t *testing.T) {
	f := newFakeWindowsNode(t, 3, 5, 2, 0)
	b, path := collectFake(t, f)
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	for _, zf := range zr.File {
		rc, err := zf.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(rc)
		rc.Close()
		if strings.Contains(string(data), secretMarker) {
			t.Errorf("%s holds a planted secret:\n%s", zf.Name, data)
		}
	}
	for _, name := range []string{"config/cni/calico-kubeconfig", "config/flannel/subnet.env", "config/calico/config.ps1",
		"config/node/kubeclusterconfig.json", "config/kube-proxy/cmdline.txt", "logs/kube-proxy/kube-proxy.log",
		"logs/cni/azure-vnet.log", "logs/flannel/flanneld.log", "logs/calico/calico-node.log"} {
		fe, ok := b.Manifest.File(name)
		if !ok || len(fe.Redacted) == 0 {
			t.Errorf("%s: no redaction recorded (%+v)", name, fe)
		}
	}
}

// Read-only by construction: the HNS source can only query, the DLL
// bindings are query entry points, and every command the Windows
// collectors run is a read.
func TestWindowsCollectionIsReadOnly(t *testing.T) {
	typ := reflect.TypeOf((*HNSSource)(nil)).Elem()
	for i := range typ.NumMethod() {
		if name := typ.Method(i).Name; !strings.HasPrefix(name, "List") && !strings.HasPrefix(name, "Get") {
			t.Errorf("HNSSource offers %s, not a query", name)
		}
	}
	kube := reflect.TypeOf((*KubeSource)(nil)).Elem()
	if kube.NumMethod() != 1 || kube.Method(0).Name != "Get" {
		t.Errorf("KubeSource offers more than Get")
	}

	// The raw HNS reader binds only Enumerate/Open/Query/Close and HNSCall,
	// and HNSCall only ever gets "GET".
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "hns_windows.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	procName := regexp.MustCompile(`^Hcn(Enumerate\w+|Open\w+|Query\w+Properties|Close\w+)$`)
	procs, methods := 0, 0
	ast.Inspect(file, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || len(call.Args) != 1 {
			return true
		}
		lit, ok := call.Args[0].(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		s, _ := strconv.Unquote(lit.Value)
		switch sel.Sel.Name {
		case "NewProc":
			procs++
			if !procName.MatchString(s) && s != "HNSCall" {
				t.Errorf("hns_windows.go binds %s", s)
			}
			if strings.Contains(s, "Create") || strings.Contains(s, "Modify") || strings.Contains(s, "Delete") {
				t.Errorf("hns_windows.go binds mutating %s", s)
			}
		case "UTF16PtrFromString":
			if s == "GET" {
				methods++
			} else if s == "POST" || s == "DELETE" || s == "PUT" {
				t.Errorf("hns_windows.go sends %s", s)
			}
		}
		return true
	})
	if procs != 21 || methods != 1 {
		t.Errorf("found %d proc bindings and %d GET methods; the test no longer sees the reader", procs, methods)
	}

	// The hcsshim reader calls only hcn's two queries.
	file, err = parser.ParseFile(fset, "hns_features_windows.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var hcnCalls []string
	ast.Inspect(file, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == "hcn" {
				hcnCalls = append(hcnCalls, sel.Sel.Name)
			}
		}
		return true
	})
	for _, c := range hcnCalls {
		if c != "GetGlobals" && c != "GetCachedSupportedFeatures" && c != "Version" && c != "SupportedFeatures" {
			t.Errorf("hns_features_windows.go uses hcn.%s", c)
		}
	}
	if !slices.Contains(hcnCalls, "GetGlobals") || !slices.Contains(hcnCalls, "GetCachedSupportedFeatures") {
		t.Errorf("hcn uses %v: the test no longer sees the reader", hcnCalls)
	}

	// Every command run against a busy node is a read.
	f := newFakeWindowsNode(t, 3, 5, 3, 0)
	collectFake(t, f)
	cmdlet := regexp.MustCompile(`\b([A-Z][a-z]+)-(Net\w+|Hot\w+|Item\w+|Cim\w+|WinEvent|Json|Object)\b`)
	quoted := regexp.MustCompile(`'[^'\n]*'`) // data, such as event log names
	for _, script := range psScripts {
		for _, m := range cmdlet.FindAllStringSubmatch(quoted.ReplaceAllString(script, "''"), -1) {
			switch m[1] {
			case "Get", "ConvertTo", "ForEach", "Where", "Select":
			default:
				t.Errorf("PowerShell script uses %s", m[0])
			}
		}
	}
	if len(f.calls) == 0 {
		t.Fatal("no command ran")
	}
	for _, fields := range f.calls {
		c := strings.Join(fields, " ")
		switch fields[0] {
		case "vfpctrl":
			for _, a := range fields[1:] {
				if strings.HasPrefix(a, "/") && !strings.HasPrefix(a, "/list-") && !strings.HasPrefix(a, "/get-") && a != "/port" && a != "/format" {
					t.Errorf("vfpctrl %s", a)
				}
			}
		case "netsh":
			if len(fields) < 4 || fields[3] != "show" {
				t.Errorf("netsh not show: %s", c)
			}
		case "powershell.exe":
		default:
			t.Errorf("unexpected command %s", c)
		}
	}
}

func newTestWriterTB(t testing.TB) (*bundle.Writer, string) {
	path := t.TempDir() + "/b.zip"
	w, err := bundle.Create(path, manifest.Manifest{Node: "node-0000", OS: "windows"})
	if err != nil {
		t.Fatal(err)
	}
	return w, path
}

// panicky answers vfpctrl, and panics on one port's dump.
type panicky struct{}

func (panicky) Run(ctx context.Context, name string, args ...string) ([]byte, error) {
	if len(args) == 1 && args[0] == "/list-vmswitch-port" {
		return []byte("  Port name : AAAA\n  Port name : BBBB\nCommand list-vmswitch-port succeeded!\n"), nil
	}
	if len(args) == 3 && args[1] == "BBBB" {
		panic("vfpctrl wrapper bug")
	}
	if len(args) == 3 {
		return []byte("Command " + args[2][1:] + " succeeded!\n"), nil
	}
	return nil, errors.New("unexpected")
}

// A panic while dumping one VFP port (in the collector's worker goroutines,
// out of the runner's reach) makes the collector partial, not the program
// crash.
func TestVFPWorkerPanic(t *testing.T) {
	w, path := newTestWriter(t)
	vfp := WindowsCollectors()[2]
	if vfp.ID != "vfp" {
		t.Fatalf("collector 2 is %s", vfp.ID)
	}
	Run(context.Background(), w, &Env{Runner: panicky{}}, []Collector{vfp}, RunOptions{})
	b := closeAndVerify(t, w, path)
	r := result(t, b, "vfp")
	if r.Status != "partial" || !strings.Contains(r.Error, "BBBB: panic") || !b.Has("vfp/port-AAAA.txt") {
		t.Errorf("vfp: %+v, files %v", r, b.Names())
	}
}
