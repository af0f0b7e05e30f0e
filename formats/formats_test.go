package formats

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wincni/diag/golden"

	"github.com/wincni/diag/bundle"
	"github.com/wincni/diag/snapshot"
)

// formatInputs are the inputs of every format and variant diag reads; each
// has a golden snapshot in testdata/golden.
var formatInputs = []string{
	"bundles/seed-broken",
	"bundles/seed-fixed",
	"bundles/seed-linux-controlplane",                       // linux/: ip -j -d link, ip -j addr/route/neigh, bridge -j fdb
	"bundles/seed-linux-controlplane/linux/bridge-fdb.json", // one iproute2 file on its own
	"collectlogs/seed-broken",                               // 2021 layout: HNS v1, UTF-16LE, hnsdiag usage text, no namespaces.txt
	"collectlogs/flannel-2024",                              // current layout: HNS v2, UTF-8, namespaces, v2 load balancers, VFP dumps
	"text/seed-broken-get-hnsnetwork.txt",
	"text/seed-fixed-get-hnsnetwork.txt",
	"text/calico-get-hnsendpoint.txt",
	"text/flannel-get-hnsnetwork-truncated.txt",
	"text/calico-get-hnspolicylist.txt",
	"text/calico-get-hnsnamespace.txt",
}

func loadInput(t *testing.T, rel string) *snapshot.Snapshot {
	t.Helper()
	return loadPath(t, filepath.Join("..", "testdata", filepath.FromSlash(rel)))
}

// loadPath reads the input at path as diag analyze does, with the default
// limits; an error fails the test.
func loadPath(t testing.TB, path string) *snapshot.Snapshot {
	t.Helper()
	b, err := bundle.Open(path, bundle.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	s, err := Load(b)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func snapshotJSON(t *testing.T, s *snapshot.Snapshot) []byte {
	t.Helper()
	out, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(out, '\n')
}

func TestFormatsGolden(t *testing.T) {
	for _, rel := range formatInputs {
		t.Run(rel, func(t *testing.T) {
			s := loadInput(t, rel)
			s.Source = rel
			got := snapshotJSON(t, s)
			golden.Check(t, filepath.Join("testdata", "golden", strings.ReplaceAll(rel, "/", "_")+".json"), got)
		})
	}
}

// The AKS wrapper zips collectlogs' files flat with its own, under a name
// that carries the host.
func TestAKSWrapperZip(t *testing.T) {
	src := filepath.Join("..", "testdata", "collectlogs", "flannel-2024")
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	entries, _ := os.ReadDir(src)
	for _, e := range entries {
		data, _ := os.ReadFile(filepath.Join(src, e.Name()))
		w, _ := zw.Create(e.Name())
		w.Write(data)
	}
	for name, content := range map[string]string{
		"collect-windows-logs-output.log": "Transcript started\r\n",
		"kubelet.log":                     "I1122 05:00:00 kubelet started\r\n",
		"WER-20261122-050012.zip":         "",
	} {
		w, _ := zw.Create(name)
		w.Write([]byte(content))
	}
	zw.Close()
	p := filepath.Join(t.TempDir(), "akswin000000-20261122-050012_logs.zip")
	os.WriteFile(p, buf.Bytes(), 0o600)

	fromZip := loadPath(t, p)
	fromDir := loadInput(t, "collectlogs/flannel-2024")
	if fromZip.Format != snapshot.FormatCollectlogs || fromZip.SourceKind != "zip" {
		t.Errorf("format %q kind %q", fromZip.Format, fromZip.SourceKind)
	}
	fromZip.Source, fromZip.SourceKind = fromDir.Source, fromDir.SourceKind
	if !bytes.Equal(snapshotJSON(t, fromZip), snapshotJSON(t, fromDir)) {
		t.Error("the AKS zip and the collectlogs folder give different snapshots")
	}
	if got := aksHostFromName(p); got != "akswin000000" {
		t.Errorf("host from name: %q", got)
	}
}

func TestLinuxArtifacts(t *testing.T) {
	s := loadInput(t, "bundles/seed-linux-controlplane")
	if s.Linux == nil || len(s.Linux.VXLANLinks()) != 1 {
		t.Fatalf("linux: %+v", s.Linux)
	}
	v := s.Linux.VXLANLinks()[0]
	if v.Name != "vxlan.calico" || v.VXLAN.VNI != 4096 || v.VXLAN.Port != 4789 || v.VXLAN.Local.String() != "10.20.30.10" || v.VXLAN.Dev != "eth1" {
		t.Errorf("vxlan: %+v %+v", v, v.VXLAN)
	}
	var fdb *snapshot.LinuxFDBEntry
	for _, e := range s.Linux.FDB {
		if e.Dev == "vxlan.calico" {
			fdb = e
		}
	}
	if fdb == nil || fdb.Dst.String() != "10.0.2.15" || fdb.MAC != "00:15:5d:64:51:0e" {
		t.Errorf("fdb: %+v", fdb)
	}
	var route *snapshot.LinuxRoute
	for _, r := range s.Linux.Routes {
		if r.Dev == "vxlan.calico" {
			route = r
		}
	}
	if route == nil || route.Prefix().String() != "100.244.206.64/26" || !route.Onlink || route.Gateway.String() != "100.244.206.65" {
		t.Errorf("route: %+v", route)
	}
	if len(s.Linux.Neighbors) != 2 || len(s.Adapters) != 3 || s.Facts.Name.Value != "controlplane" {
		t.Errorf("neighbors %d adapters %d name %q", len(s.Linux.Neighbors), len(s.Adapters), s.Facts.Name.Value)
	}
}

func TestHNSDiagLayouts(t *testing.T) {
	old := "Networks:\r\nName             ID\r\nnat              3D7A6C52-1E8B-4F0A-B2C9-6E4D8F1A2B3C\r\nCalico           28893E01-AC8D-4BE6-85D4-7CD3A78611C1\r\n\r\n" +
		"Endpoints:\r\nName             ID                                   Virtual Network Name\r\nCalico_ep        8E9F0A1B-2C3D-4E5F-6071-8293A4B5C6D7 Calico\r\n\r\n" +
		"Namespaces:\r\nID                                   | Endpoint IDs\r\n5A1B2C3D-4E5F-6071-8293-A4B5C6D7E8F9 | 4C2B8E17-9D3A-4F61-8B5C-0E7D6A9F2C14\r\n"
	objs, ok := ParseHNSDiag(old)
	if !ok || len(objs) != 4 || objs[1].Name != "Calico" || objs[2].Network != "Calico" || objs[3].Kind != "namespace" || objs[3].ID != "5A1B2C3D-4E5F-6071-8293-A4B5C6D7E8F9" {
		t.Errorf("old table: %+v", objs)
	}
	if _, ok := ParseHNSDiag("Usage: hnsdiag <command> <object> [options]\n"); ok {
		t.Error("usage text taken as data")
	}
}

func TestVFPParser(t *testing.T) {
	s := loadInput(t, "collectlogs/flannel-2024")
	if len(s.VFPPorts) != 3 {
		t.Fatalf("%d ports", len(s.VFPPorts))
	}
	pod := s.VFPPorts[2]
	if pod.EndpointID != "3F1E2D4C-5B6A-4789-8A0B-1C2D3E4F5061" || pod.Blocked == nil || *pod.Blocked || pod.RuleCount() != 4 {
		t.Errorf("pod port: endpoint %q blocked %v rules %d", pod.EndpointID, pod.Blocked, pod.RuleCount())
	}
	encap := pod.Layers[0].Groups[0].Rules[0]
	if encap.Type != "encap" || encap.Conditions.Get("Destination IP") != "10.244.0.0-10.244.0.255" || len(encap.EncapDestinations) != 1 ||
		encap.Counters["Matched packets"] != 5120 || encap.Props["Encap source IP"] != "192.168.10.21" {
		t.Errorf("encap rule: %+v", encap)
	}
	snat := pod.Layers[1].Groups[0].Rules[0]
	if snat.Type != "dynnat" || snat.Props["NAT pool"] != "SLB_NATPOOL_IPV4_TCP_192.168.10.21" || snat.Props["Type (2)"] != "Source NAT" {
		t.Errorf("two pairs on one line: %+v", snat.Props)
	}
	if block := pod.Layers[2].Groups[0].Rules[0]; block.Conditions.Get("Source IP") != "fe80::1" || block.FriendlyName != "Block_LoopBack_fe80::1" {
		t.Errorf("IPv6 values split on colons: %+v", block)
	}
	if pod.Counters["OUT SYN packets"] != 311 || pod.Counters["IN Total bytes"] != 9980231 {
		t.Errorf("port counters: %v", pod.Counters)
	}
	if hostVnic := s.VFPPorts[1]; hostVnic.Blocked == nil || *hostVnic.Blocked || hostVnic.FriendlyName != "Host Vnic 6e5d4c3b" {
		t.Errorf("host vNIC: %+v", hostVnic)
	}
}
