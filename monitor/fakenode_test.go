package monitor

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/wincni/diag/collectors"
	"github.com/wincni/diag/gen"
)

// fakeNode is a Windows node behind the collectors' interfaces: HNS,
// vfpctrl, PowerShell and netsh answer from a generated flannel VXLAN node
// (gen.WriteClusterNode), whose state a test changes between rounds.
type fakeNode struct {
	dir     string // the generated node, read at each query as HNS reads its state
	mu      sync.Mutex
	files   map[string][]byte // bundle path → content that replaces dir's
	hnsDown error             // every HNS query fails with it
	delay   time.Duration     // each HNS query takes this long (or until its context ends)
}

func newFakeNode(t testing.TB, c gen.ClusterNode) *fakeNode {
	t.Helper()
	dir := t.TempDir()
	if err := gen.WriteClusterNode(dir, c); err != nil {
		t.Fatal(err)
	}
	return &fakeNode{dir: dir, files: map[string][]byte{}}
}

// file is a file of the node's state: as changed by the test, else as
// generated; nil when there is none.
func (f *fakeNode) file(name string) []byte {
	f.mu.Lock()
	data, ok := f.files[name]
	f.mu.Unlock()
	if ok {
		return data
	}
	data, err := os.ReadFile(filepath.Join(f.dir, filepath.FromSlash(name)))
	if err != nil {
		return nil
	}
	return data
}

// dropRemoteSubnetRoute removes the network's first RemoteSubnetRoute, as
// a CNI agent that missed a peer leaves it (OVL-02 fail); restore undoes it.
func (f *fakeNode) dropRemoteSubnetRoute(t testing.TB) (restore func()) {
	t.Helper()
	orig := f.file("hns/v2/networks.json")
	f.mu.Lock()
	defer f.mu.Unlock()
	var nets []map[string]any
	if err := json.Unmarshal(orig, &nets); err != nil {
		t.Fatal(err)
	}
	pols := nets[0]["Policies"].([]any)
	for i, p := range pols {
		if p.(map[string]any)["Type"] == "RemoteSubnetRoute" {
			nets[0]["Policies"] = append(pols[:i:i], pols[i+1:]...)
			break
		}
	}
	data, err := json.Marshal(nets)
	if err != nil {
		t.Fatal(err)
	}
	f.files["hns/v2/networks.json"] = data
	return func() {
		f.mu.Lock()
		f.files["hns/v2/networks.json"] = orig
		f.mu.Unlock()
	}
}

func (f *fakeNode) setHNSDown(err error) {
	f.mu.Lock()
	f.hnsDown = err
	f.mu.Unlock()
}

func (f *fakeNode) hnsWait(ctx context.Context) error {
	f.mu.Lock()
	down, d := f.hnsDown, f.delay
	f.mu.Unlock()
	if down != nil {
		return down
	}
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

func (f *fakeNode) ListV2(ctx context.Context, kind collectors.HNSKind, detailed bool) ([]byte, error) {
	if err := f.hnsWait(ctx); err != nil {
		return nil, err
	}
	if data := f.file("hns/v2/" + string(kind) + ".json"); data != nil {
		return data, nil
	}
	return []byte("[]"), nil
}

func (f *fakeNode) GetV1(ctx context.Context, path string) ([]byte, error) {
	if err := f.hnsWait(ctx); err != nil {
		return nil, err
	}
	if path == "/globals/version" {
		return []byte(`{"Major":15,"Minor":4}`), nil
	}
	return []byte("[]"), nil
}

func (f *fakeNode) GetFeatures(ctx context.Context) ([]byte, error) {
	if err := f.hnsWait(ctx); err != nil {
		return nil, err
	}
	return []byte(`{"source":"github.com/Microsoft/hcsshim v0.15.0 hcn.GetSupportedFeatures","version":{"Major":15,"Minor":4},` +
		`"features":{"API":{"V1":true,"V2":true},"RemoteSubnet":true,"HostRoute":true,"DSR":true,"ModifyLoadbalancer":true}}`), nil
}

// Run answers the commands the round's collectors run.
func (f *fakeNode) Run(ctx context.Context, name string, args ...string) ([]byte, error) {
	switch name {
	case "powershell.exe":
		script := args[len(args)-1]
		switch {
		case strings.Contains(script, "Get-NetAdapter -IncludeHidden"):
			return f.file("host/adapters.json"), nil
		case strings.Contains(script, "@(Get-NetRoute -ErrorAction"):
			return f.file("host/routes.json"), nil
		case strings.Contains(script, "kube-proxy.exe'"):
			return f.file("config/kube-proxy/cmdline.txt"), nil
		case strings.Contains(script, "Get-NetFirewallProfile"):
			return f.file("host/firewall.json"), nil
		case strings.Contains(script, `Windows NT\CurrentVersion`):
			return f.file("host/os.json"), nil
		}
		return []byte("[]"), nil
	case "vfpctrl":
		if len(args) >= 1 && args[0] == "/list-vmswitch-port" {
			if len(args) > 1 {
				return []byte("ERROR: unknown option /format\n"), nil
			}
			return f.file("vfp/ports.txt"), nil
		}
		if len(args) == 3 && args[0] == "/port" && args[2] == "/list-rule" {
			if data := f.file("vfp/port-" + args[1] + ".txt"); data != nil {
				return data, nil
			}
		}
		return []byte("Command " + strings.TrimPrefix(args[len(args)-1], "/") + " succeeded!\n"), nil
	case "netsh":
		return []byte("\nProtocol tcp Dynamic Port Range\n---------------------------------\nStart Port      : 49152\nNumber of Ports : 16384\n"), nil
	}
	return nil, fmt.Errorf("%s: not found", name)
}

// env is the collectors' Env over the fake node.
func (f *fakeNode) env(t testing.TB) *collectors.Env {
	return &collectors.Env{Runner: f, HNS: f, FS: fstest.MapFS{
		"etc/kube-flannel/net-conf.json": {Data: f.file("config/flannel/net-conf.json")},
	}, NodeName: "node-0000", TempDir: t.TempDir(), MaxLogBytes: 16 << 10}
}

// fakeKube is a KubeView over the generated node's Kubernetes lists, as
// the watches would hold them.
type fakeKube struct {
	f   *fakeNode
	err error
}

func (k fakeKube) Err() error { return k.err }

func (k fakeKube) Lists() (map[string][]byte, error) {
	out := map[string][]byte{}
	if k.err != nil {
		return out, nil
	}
	for _, name := range []string{"k8s/nodes.json", "k8s/services.json", "k8s/pods.json", "k8s/endpointslices.json"} {
		if data := k.f.file(name); data != nil {
			out[name] = data
		}
	}
	return out, nil
}

func (f *fakeNode) source(t testing.TB) *LiveSource {
	return &LiveSource{GOOS: "windows", Env: f.env(t), Kube: fakeKube{f: f}, VFPEvery: 1, Dir: t.TempDir(), Version: "test"}
}

var errHNSGone = errors.New("HNS: The RPC server is unavailable")
