package formats

import (
	"errors"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wincni/diag/bundle"
	"github.com/wincni/diag/snapshot"
)

func loadSeed(t *testing.T, name string) *snapshot.Snapshot {
	t.Helper()
	return loadPath(t, filepath.Join("..", "testdata", "bundles", name))
}

func TestLoadSeedBroken(t *testing.T) {
	s := loadSeed(t, "seed-broken")
	if len(s.Networks) != 2 || len(s.Endpoints) != 5 || len(s.LoadBalancers) != 3 || len(s.KubeNodes) != 2 || len(s.Adapters) != 3 {
		t.Fatalf("counts: %d networks %d endpoints %d nodes %d adapters", len(s.Networks), len(s.Endpoints), len(s.KubeNodes), len(s.Adapters))
	}
	cni := s.CNINetwork()
	if cni == nil || cni.Name != "Calico" {
		t.Fatalf("CNI network: %+v (facts %+v)", cni, s.Facts.NetworkName)
	}
	if cni.ManagementIP != netip.MustParseAddr("10.0.2.15") || cni.DrMAC != "00:15:5d:64:51:0e" {
		t.Errorf("Calico: %v %v", cni.ManagementIP, cni.DrMAC)
	}
	want := map[string]snapshot.Fact{
		"name":    {Value: "winw1", Source: "manifest.json node"},
		"network": {Value: "Calico", Source: "config/kube-proxy/cmdline.txt --network-name"},
		"nodeIP":  {Value: "10.20.30.11", Source: "k8s/nodes.json winw1 InternalIP"},
		"service": {Value: "10.96.0.0/12", Source: "hns/v1/endpoints.json endpoint ROUTE/SDNRoute policy with NeedEncap"},
		"dns":     {Value: "10.96.0.10", Source: "k8s/services.json kube-system/kube-dns clusterIP"},
		"vni":     {Value: "4096", Source: "hns/v1/networks.json[1] Subnets VSID"},
		"cluster": {Value: "100.244.0.0/16", Source: "config/kube-proxy/cmdline.txt --cluster-cidr"},
	}
	got := map[string]snapshot.Fact{
		"name": s.Facts.Name, "network": s.Facts.NetworkName, "nodeIP": s.Facts.NodeIP, "service": s.Facts.ServiceCIDR,
		"dns": s.Facts.DNSServiceIP, "vni": s.Facts.VNI, "cluster": s.Facts.ClusterCIDR,
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("fact %s = %+v, want %+v", k, got[k], w)
		}
	}
	for _, in := range []snapshot.Input{snapshot.InputHNSNetworks, snapshot.InputHNSEndpoints, snapshot.InputHNSLoadBalancers, snapshot.InputHostAdapters, snapshot.InputKubeNodes, snapshot.InputKubeServices, snapshot.InputKubeProxy, snapshot.InputOS} {
		if !s.Has(in) {
			t.Errorf("input %s missing", in)
		}
	}
	if s.Has(snapshot.InputHNSNamespaces) {
		t.Error("namespaces reported present")
	}
}

func TestFactsWithoutKubernetes(t *testing.T) {
	// The same node, only its HNS dump: facts fall back to HNS.
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "hns", "v1"), 0o700)
	for _, f := range []string{"hns/v1/networks.json", "hns/v1/endpoints.json"} {
		data, _ := os.ReadFile(filepath.Join("..", "testdata", "bundles", "seed-broken", f))
		os.WriteFile(filepath.Join(dir, f), data, 0o600)
	}
	b, err := bundle.Open(dir, bundle.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Load(b)
	if err != nil {
		t.Fatal(err)
	}
	if s.Facts.Name.Known() {
		t.Errorf("name derived from nothing: %+v", s.Facts.Name)
	}
	if s.Facts.NetworkName.Value != "Calico" || s.Facts.NodeIP.Value != "10.0.2.15" || s.Facts.PodCIDR.Value != "100.244.206.64/26" || s.Facts.DNSServiceIP.Value != "10.96.0.10" {
		t.Errorf("facts: %+v", s.Facts)
	}
}

func TestLoadReportsMalformedFile(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "hns", "v1"), 0o700)
	os.WriteFile(filepath.Join(dir, "hns", "v1", "networks.json"), []byte("[{\"Name\": }]"), 0o600)
	b, _ := bundle.Open(dir, bundle.DefaultLimits)
	_, err := Load(b)
	var pe *ParseError
	if err == nil || !errors.As(err, &pe) || pe.File != "hns/v1/networks.json" {
		t.Fatalf("err = %v", err)
	}
}

func TestMergeV1AndV2(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "hns", "v1"), 0o700)
	os.MkdirAll(filepath.Join(dir, "hns", "v2"), 0o700)
	os.WriteFile(filepath.Join(dir, "hns", "v2", "networks.json"), []byte(`[{"ID":"aa-1","Name":"vxlan0","Type":"Overlay",
		"Policies":[{"Type":"ProviderAddress","Settings":{"ProviderAddress":"10.0.0.5"}}]}]`), 0o600)
	os.WriteFile(filepath.Join(dir, "hns", "v1", "networks.json"), []byte(`[{"ID":"AA-1","Name":"vxlan0","Type":"Overlay","ManagementIP":"10.0.0.4",
		"DrMacAddress":"00-15-5D-00-00-01","LayeredOn":"bb-2"},{"ID":"CC-3","Name":"nat","Type":"NAT"}]`), 0o600)
	os.WriteFile(filepath.Join(dir, "hns", "v2", "endpoints.json"), []byte(`[{"ID":"ee-1","HostComputeNetwork":"aa-1","IpConfigurations":[{"IpAddress":"10.244.1.5"}]}]`), 0o600)
	os.WriteFile(filepath.Join(dir, "hns", "v1", "endpoints.json"), []byte(`[{"ID":"EE-1","State":3,"VirtualNetworkName":"vxlan0",
		"Resources":{"Allocators":[{"Tag":"Endpoint Port","EndpointPortGuid":"ff-9"}]}}]`), 0o600)
	b, _ := bundle.Open(dir, bundle.DefaultLimits)
	s, err := Load(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Networks) != 2 || len(s.Endpoints) != 1 {
		t.Fatalf("%d networks, %d endpoints", len(s.Networks), len(s.Endpoints))
	}
	n := s.Networks[0]
	if n.ManagementIP.String() != "10.0.0.4" || n.DrMAC != "00:15:5d:00:00:01" || n.LayeredOn != "BB-2" || len(n.Refs) != 2 {
		t.Errorf("merged network: %+v", n)
	}
	if len(s.Notes) != 1 || !strings.Contains(s.Notes[0], "differs") {
		t.Errorf("notes: %v", s.Notes)
	}
	e := s.Endpoints[0]
	if e.State != 3 || e.VFPPortID != "FF-9" || e.NetworkName != "vxlan0" {
		t.Errorf("merged endpoint: %+v", e)
	}
}
