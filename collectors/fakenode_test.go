package collectors

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/wincni/diag/gen"
)

// fakeWindowsNode is a busy Windows node behind the collectors' interfaces:
// its HNS answers from a generated healthy flannel node, vfpctrl lists
// ports and dumps each one, PowerShell and netsh print what they print on
// a node, and its disk holds configuration and logs with secrets planted.
type fakeWindowsNode struct {
	hnsDir string // a gen.WriteClusterNode directory
	ports  int
	delay  time.Duration // each vfpctrl call
	fs     fstest.MapFS

	mu    sync.Mutex
	calls [][]string              // every command with its arguments, as run
	hns   []func(context.Context) // every HNS query, to replay

}

// secretMarker is planted in every secret; no collected byte may hold it.
const secretMarker = "PLANTEDs3cr3t"

func newFakeWindowsNode(t testing.TB, nodes, localPods, ports int, delay time.Duration) *fakeWindowsNode {
	dir := t.TempDir()
	if err := gen.WriteClusterNode(dir, gen.ClusterNode{Nodes: nodes, Index: 0, LocalPods: localPods}); err != nil {
		t.Fatal(err)
	}
	s := secretMarker
	return &fakeWindowsNode{hnsDir: dir, ports: ports, delay: delay, fs: fstest.MapFS{
		"etc/cni/net.d/10-flannel.conf": {Data: []byte(`{"cniVersion":"0.3.0","name":"flannel.4096","type":"flannel","delegate":{"type":"win-overlay","apiVersion":2,"policies":[{"name":"EndpointPolicy","value":{"Type":"OutBoundNAT","Settings":{"Exceptions":["10.64.0.0/10","10.96.0.0/12"]}}}]}}`)},
		// Calico writes a kubeconfig with its service account token here.
		"etc/cni/net.d/calico-kubeconfig":    {Data: []byte("apiVersion: v1\nkind: Config\nusers:\n- name: calico-windows\n  user:\n    token: eyJhbGciOiJSUzI1NiJ9." + s + "\n    client-key-data: " + s + "LS0t\n")},
		"etc/kube-flannel/net-conf.json":     {Data: []byte(`{"Network":"10.64.0.0/10","Backend":{"Type":"vxlan","Name":"flannel.4096","VNI":4096,"Port":4789}}`)},
		"run/flannel/subnet.env":             {Data: []byte("FLANNEL_NETWORK=10.64.0.0/10\nFLANNEL_SUBNET=10.64.0.1/24\nFLANNEL_MTU=1450\nFLANNEL_IPMASQ=true\nETCD_PASSWORD=" + s + "\n")},
		"CalicoWindows/config.ps1":           {Data: []byte("$env:KUBE_NETWORK = \"Calico.*\"\n$env:CALICO_NETWORKING_BACKEND = \"vxlan\"\n$env:ETCD_KEY = @'\n-----BEGIN EC PRIVATE KEY-----\n" + s + "\n-----END EC PRIVATE KEY-----\n'@\n$env:K8S_SERVICE_ACCOUNT_TOKEN = \"" + s + "\"\n")},
		"k/kubeclusterconfig.json":           {Data: []byte(`{"Cri":{"Name":"containerd"},"Kubernetes":{"Network":{"ServiceCidr":"10.0.0.0/16"}},"Cloud":{"aadClientSecret":"` + s + `","StorageKey":"DefaultEndpointsProtocol=https;AccountName=x;AccountKey=` + s + `=="}}`)},
		"k/kube-proxy.log":                   {Data: []byte(strings.Repeat("I1122 08:00:00 proxier.go:1 Syncing HNS policies\n", 2000) + "I1122 08:00:01 round_trippers.go:1 Authorization: Bearer " + s + "xyz\n")},
		"k/azure-vnet.log":                   {Data: []byte("2026/11/22 08:00:00 [cni] password=" + s + " ignored\n")},
		"k/kubelet.log":                      {Data: []byte("I1122 08:00:00.000000 4312 server.go:466] \"Kubelet version\" kubeletVersion=\"v1.31.2\"\n")},
		"var/log/containerd/containerd.log":  {Data: []byte("time=\"2026-11-22T08:00:00Z\" level=info msg=\"starting containerd\"\n")},
		"k/flannel/flanneld.log":             {Data: []byte("I1122 08:00:00 kube.go:1 using token " + "--token=" + s + "\n")},
		"CalicoWindows/logs/calico-node.log": {Data: []byte("2026-11-22 08:00:00 [INFO] etcd https://root:" + s + "@10.0.0.5:2379\n")},
		"CalicoWindows/logs/old.log.gz":      {Data: []byte("\x1f\x8b\x08\x00compressed" + s)},
	}}
}

func (f *fakeWindowsNode) env() *Env {
	return &Env{Runner: f, FS: f.fs, HNS: f, NodeName: "node-0000", TempDir: os.TempDir(), MaxLogBytes: 16 << 10}
}

func (f *fakeWindowsNode) wait(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (f *fakeWindowsNode) record(q func(context.Context)) {
	f.mu.Lock()
	f.hns = append(f.hns, q)
	f.mu.Unlock()
}

func (f *fakeWindowsNode) ListV2(ctx context.Context, kind HNSKind, detailed bool) ([]byte, error) {
	f.record(func(ctx context.Context) { f.ListV2(ctx, kind, detailed) })
	if err := f.wait(ctx, f.delay/4); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(filepath.Join(f.hnsDir, "hns", "v2", string(kind)+".json"))
	if errors.Is(err, os.ErrNotExist) {
		return []byte("[]"), nil
	}
	return data, err
}

func (f *fakeWindowsNode) GetV1(ctx context.Context, path string) ([]byte, error) {
	f.record(func(ctx context.Context) { f.GetV1(ctx, path) })
	if err := f.wait(ctx, f.delay/4); err != nil {
		return nil, err
	}
	if path == "/globals/version" {
		return []byte(`{"Major":15,"Minor":4}`), nil
	}
	return []byte("[]"), nil
}

func (f *fakeWindowsNode) GetFeatures(ctx context.Context) ([]byte, error) {
	f.record(func(ctx context.Context) { f.GetFeatures(ctx) })
	return []byte(`{"source":"github.com/Microsoft/hcsshim v0.15.0 hcn.GetSupportedFeatures","version":{"Major":15,"Minor":4},` +
		`"features":{"ACL":{"AclAddressLists":true},"API":{"V1":true,"V2":true},"RemoteSubnet":true,"HostRoute":true,"DSR":true,` +
		`"IPv6DualStack":true,"ModifyLoadbalancer":true}}`), nil
}

func portName(i int) string { return fmt.Sprintf("%08X-AAAA-4BBB-8CCC-%012X", 0x7000000+i, i) }

func (f *fakeWindowsNode) Run(ctx context.Context, name string, args ...string) ([]byte, error) {
	f.mu.Lock()
	f.calls = append(f.calls, append([]string{name}, args...))
	f.mu.Unlock()
	switch name {
	case "vfpctrl":
		if err := f.wait(ctx, f.delay); err != nil {
			return nil, err
		}
		return f.vfpctrl(args)
	case "powershell.exe":
		script := args[len(args)-1]
		switch {
		case strings.Contains(script, psAdapters):
			return os.ReadFile(filepath.Join(f.hnsDir, "host", "adapters.json"))
		case strings.Contains(script, psRoutes):
			return os.ReadFile(filepath.Join(f.hnsDir, "host", "routes.json"))
		case strings.Contains(script, psOS):
			return os.ReadFile(filepath.Join(f.hnsDir, "host", "os.json"))
		case strings.Contains(script, psFirewall):
			return os.ReadFile(filepath.Join(f.hnsDir, "host", "firewall.json"))
		case strings.Contains(script, psHNSEvents):
			return []byte(`{"Events":[{"Log":"Microsoft-Windows-Host-Network-Service-Admin","TimeCreated":"2026-11-24T09:00:00.0000000Z","Id":1100,"Level":4,"LevelName":"Information","Message":"Endpoint created."}]}`), nil
		case strings.Contains(script, psKubeProxy):
			cmd, err := os.ReadFile(filepath.Join(f.hnsDir, "config", "kube-proxy", "cmdline.txt"))
			return append(cmd, []byte(" --kubeconfig=C:\\k\\config --password="+secretMarker+"\n")...), err
		}
		return nil, fmt.Errorf("unexpected script")
	case "netsh":
		if args[3] == "excludedportrange" && strings.HasSuffix(args[4], "udp") {
			return []byte("\nProtocol udp Port Exclusion Ranges\n\nStart Port    End Port\n----------    --------\n\n* - Administered port exclusions.\n"), nil
		}
		if args[3] == "excludedportrange" {
			return []byte("\nProtocol tcp Port Exclusion Ranges\n\nStart Port    End Port\n----------    --------\n      1080        1179\n     50000       50059     *\n\n* - Administered port exclusions.\n"), nil
		}
		return []byte("\nProtocol tcp Dynamic Port Range\n---------------------------------\nStart Port      : 49152\nNumber of Ports : 16384\n"), nil
	}
	return nil, fmt.Errorf("%s: not found", name)
}

func (f *fakeWindowsNode) vfpctrl(args []string) ([]byte, error) {
	if len(args) >= 1 && args[0] == "/list-vmswitch-port" {
		if len(args) > 1 {
			return []byte("ERROR: unknown option /format\n"), nil
		}
		var b strings.Builder
		b.WriteString("\nITEM LIST\n===========\n\n")
		for i := range f.ports {
			fmt.Fprintf(&b, "  Port name              : %s\n  Port Friendly name     : Container NIC %08x\n  Switch name            : 7B2E9A41-0C3D-4E5F-8A6B-1C2D3E4F5A6B\n  Switch Friendly name   : flannel.4096\n  PortId                 : %d\n  MAC address            : 02-AA-00-00-%02X-%02X\n  Port is Enabled.\n\n", portName(i), i, i+2, i/256, i%256)
		}
		b.WriteString("Command list-vmswitch-port succeeded!\n")
		return []byte(b.String()), nil
	}
	if len(args) == 3 && args[0] == "/port" {
		switch args[2] {
		case "/list-rule", "/get-rule-counter":
			return []byte("ITEM LIST\n===========\n\n    LAYER : VNET_ENCAP_LAYER\n        Friendly name : VNET_ENCAP_LAYER\n        Priority : 100\nCommand " + args[2][1:] + " succeeded!\n"), nil
		case "/get-port-state":
			return []byte("Port State\n    Enabled : TRUE\n    Blocked : FALSE\nCommand get-port-state succeeded!\n"), nil
		case "/get-port-counter":
			return []byte("Direction - OUT\n    Total packets : 100\nDirection - IN\n    Total packets : 90\nCommand get-port-counter succeeded!\n"), nil
		}
	}
	return nil, fmt.Errorf("vfpctrl %v: unexpected", args)
}
