package analyzers

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/formats/formatstest"
	"github.com/wincni/diag/snapshot"
)

// Tests for the rules that must tell a Kubernetes node from a plain
// container host (OVL-09, DNS-02, NAT-05), that must not take a network whose
// type the input did not show for NAT, and for flannel's network names.

const natHost = "testdata/scenarios/nat-only-container-host"

func k8sRun(t *testing.T, s *snapshot.Snapshot, id string) ([]finding.Finding, bool) {
	t.Helper()
	res := Run([]*snapshot.Snapshot{s}, Selection{Only: []string{id}})
	skipped := false
	for _, sk := range res.Skipped {
		skipped = skipped || sk.ID == id
	}
	return findingsFor(res, id), skipped
}

func k8sAtMost(t *testing.T, fs []finding.Finding, sev finding.Severity) {
	t.Helper()
	for _, f := range fs {
		if f.Severity > sev {
			t.Errorf("%s %s above %s: %s", f.ID, f.Severity, sev, f.Summary)
		}
	}
}

func k8sHas(fs []finding.Finding, sev finding.Severity, words ...string) bool {
	for _, f := range fs {
		ok := f.Severity == sev
		for _, w := range words {
			ok = ok && strings.Contains(f.Summary, w)
		}
		if ok {
			return true
		}
	}
	return false
}

func TestOVL09NATOnlyHost(t *testing.T) {
	s := formatstest.Load(t, natHost)
	fs, _ := k8sRun(t, s, "OVL-09")
	if !k8sHas(fs, finding.Info, "not a Kubernetes overlay node", "only NAT networks (nat)") {
		t.Errorf("plain containerd host: %v", summaries(fs))
	}
	k8sAtMost(t, fs, finding.Info)

	// The same HNS state on a host that runs kube-proxy: the pod network is missing.
	s = formatstest.Load(t, natHost)
	s.KubeProxy = &snapshot.KubeProxyConfig{Source: "config/kube-proxy/cmdline.txt", NetworkName: "flannel.4096"}
	fs, _ = k8sRun(t, s, "OVL-09")
	if !k8sHas(fs, finding.Fail, "no Overlay or L2Bridge network", "kube-proxy") {
		t.Errorf("Kubernetes node without a pod network: %v", summaries(fs))
	}

	// No networks at all and nothing Kubernetes: info, not fail.
	s = formatstest.Load(t, natHost)
	s.Networks = nil
	fs, _ = k8sRun(t, s, "OVL-09")
	if !k8sHas(fs, finding.Info, "no networks at all") {
		t.Errorf("no networks: %v", summaries(fs))
	}
	k8sAtMost(t, fs, finding.Info)
}

// A network record cut before its Type line (snapshot.TypeUnknown) is not NAT.
func TestOVL09UnknownTypeIsNotNAT(t *testing.T) {
	for _, k8s := range []bool{false, true} {
		s := formatstest.Load(t, natHost)
		for _, n := range s.Networks {
			n.Type = snapshot.TypeUnknown
		}
		if k8s {
			s.KubeProxy = &snapshot.KubeProxyConfig{Source: "config/kube-proxy/cmdline.txt"}
		}
		fs, skipped := k8sRun(t, s, "OVL-09")
		if len(fs) > 0 || !skipped {
			t.Errorf("k8s %v: %v (skipped %v)", k8s, summaries(fs), skipped)
		}
		res := Run([]*snapshot.Snapshot{s}, Selection{Only: []string{"OVL-09"}})
		if len(res.Skipped) != 1 || !strings.Contains(res.Skipped[0].Reason, "type of nat is not shown") {
			t.Errorf("skip reason: %+v", res.Skipped)
		}
	}
}

func TestDNS02OnlyPods(t *testing.T) {
	// A ctr container on the NAT network with the host's suffix: not a pod.
	s := formatstest.Load(t, natHost)
	if len(s.Endpoints) != 1 || s.Endpoints[0].DNSSuffixes[0] != "internal.example.com" {
		t.Fatalf("fixture lost its container endpoint: %+v", s.Endpoints)
	}
	if fs, skipped := k8sRun(t, s, "DNS-02"); len(fs) > 0 || !skipped {
		t.Errorf("container on nat: %v (skipped %v)", summaries(fs), skipped)
	}
	// Kubernetes evidence does not make a NAT network's container a pod.
	s.KubeProxy = &snapshot.KubeProxyConfig{Source: "config/kube-proxy/cmdline.txt"}
	if fs, skipped := k8sRun(t, s, "DNS-02"); len(fs) > 0 || skipped {
		t.Errorf("container on nat of a Kubernetes node: %v (skipped %v)", summaries(fs), skipped)
	}
	// A network whose type is not shown: a pod only with Kubernetes evidence.
	s = formatstest.Load(t, natHost)
	s.Networks[0].Type = snapshot.TypeUnknown
	if fs, skipped := k8sRun(t, s, "DNS-02"); len(fs) > 0 || !skipped {
		t.Errorf("unknown-type network, no Kubernetes: %v (skipped %v)", summaries(fs), skipped)
	}
	s.KubeProxy = &snapshot.KubeProxyConfig{Source: "config/kube-proxy/cmdline.txt"}
	if fs, _ := k8sRun(t, s, "DNS-02"); !k8sHas(fs, finding.Warn, "172.27.148.101 starts with internal.example.com") {
		t.Errorf("unknown-type network on a Kubernetes node: %v", summaries(fs))
	}
	// Docker makes Overlay (swarm) and L2Bridge networks too: a container
	// there is a pod's only on a CNI plugin's network or a Kubernetes node.
	s = formatstest.Load(t, natHost)
	s.Networks[0].Type = snapshot.TypeL2Bridge
	if fs, _ := k8sRun(t, s, "DNS-02"); len(fs) > 0 {
		t.Errorf("Docker l2bridge container judged as a pod: %v", summaries(fs))
	}
	s.Networks[0].Name = "cbr0"
	if fs, _ := k8sRun(t, s, "DNS-02"); !k8sHas(fs, finding.Warn, "172.27.148.101") {
		t.Errorf("endpoint on flannel's cbr0: %v", summaries(fs))
	}
	// Networks not in the input: the endpoint's network name decides.
	s = formatstest.Load(t, natHost)
	s.Networks = nil
	if fs, skipped := k8sRun(t, s, "DNS-02"); len(fs) > 0 || !skipped {
		t.Errorf("endpoint on \"nat\" without networks: %v (skipped %v)", summaries(fs), skipped)
	}
	s.Endpoints[0].NetworkName, s.Endpoints[0].NetworkID = "flannel.4096", ""
	if fs, _ := k8sRun(t, s, "DNS-02"); !k8sHas(fs, finding.Warn, "172.27.148.101") {
		t.Errorf("endpoint on flannel.4096 without networks: %v", summaries(fs))
	}
}

func TestNAT05PlainContainerdHost(t *testing.T) {
	s := formatstest.Load(t, natHost)
	if len(s.CNIConfigs) != 1 || !s.CNIConfigs[0].IsNAT() {
		t.Fatal("fixture lost 0-containerd-nat.json")
	}
	if fs, _ := k8sRun(t, s, "NAT-05"); len(fs) > 0 {
		t.Errorf("plain containerd host: %v", summaries(fs))
	}
	s.CNIConfigs = append(s.CNIConfigs, &snapshot.CNIConfig{File: "config/cni/10-flannel.conf", Name: "flannel.4096", Plugins: []string{"flannel", "sdnoverlay"}})
	if fs, _ := k8sRun(t, s, "NAT-05"); !k8sHas(fs, finding.Fail, "0-containerd-nat.json", "10-flannel.conf") {
		t.Errorf("nat file before flannel's: %v", summaries(fs))
	}
}

// NAT-05's endpoint check counts only networks shown as NAT.
func TestNAT05UnknownTypeIsNotNAT(t *testing.T) {
	s := formatstest.Load(t, "testdata/scenarios/flannel-vxlan-default-healthy")
	nat := &snapshot.Network{ID: "AAAAAAAA-0000-4000-8000-000000000001", Name: "nat", Type: snapshot.TypeUnknown, Refs: []snapshot.Ref{{File: "hns/v2/networks.json", Index: 1}}}
	s.Networks = append(s.Networks, nat)
	s.Facts.ClusterCIDR = snapshot.Fact{Value: "10.244.0.0/16", Source: "test"}
	ep := *s.Endpoints[1] // its detail is the original's: named through a copy of it
	ep.ID, ep.NetworkID, ep.Name = "BBBBBBBB-0000-4000-8000-000000000001", nat.ID, "c_nat"
	d := ep.DetailCopy()
	d.NetworkName = "nat"
	ep.SetDetail(&d)
	ep.IP = netip.MustParseAddr("172.27.148.101")
	s.Endpoints = append(s.Endpoints, &ep)
	if s.Endpoints[1].NetworkName == "nat" || !snapshot.SharedDetailIntact() {
		t.Fatal("naming the copy's network renamed the original's")
	}
	if fs, _ := k8sRun(t, s, "NAT-05"); len(fs) > 0 {
		t.Errorf("unknown-type network taken for NAT: %v", summaries(fs))
	}
	nat.Type = snapshot.TypeNAT
	if fs, _ := k8sRun(t, s, "NAT-05"); !k8sHas(fs, finding.Warn, "172.27.148.101") {
		t.Errorf("NAT network: %v", summaries(fs))
	}
}

func TestFlannelNetworkName(t *testing.T) {
	for _, c := range []struct {
		conf snapshot.FlannelNetConf
		want string
	}{
		{snapshot.FlannelNetConf{BackendType: "vxlan"}, "flannel.4096"},
		{snapshot.FlannelNetConf{BackendType: "VXLAN", VNI: 4097}, "flannel.4097"},
		{snapshot.FlannelNetConf{BackendType: "vxlan", VNI: 4096, BackendName: "vxlan0"}, "vxlan0"},
		{snapshot.FlannelNetConf{BackendType: "host-gw"}, "cbr0"},
		{snapshot.FlannelNetConf{BackendType: "host-gw", BackendName: "l2bridge"}, "l2bridge"},
		{snapshot.FlannelNetConf{BackendType: "udp"}, ""},
	} {
		if got, _, _ := flannelNetworkName(&c.conf); got != c.want {
			t.Errorf("%+v: %q, want %q", c.conf, got, c.want)
		}
	}
}

// Without HNS networks in the input the CNI file is compared with the name
// net-conf.json gives, as a warning (nothing shows what exists).
func TestFLN01WithoutHNS(t *testing.T) {
	s := formatstest.Load(t, "testdata/scenarios/fln01-cni-name-differs")
	s.Networks = nil
	delete(s.Inputs, snapshot.InputHNSNetworks)
	fs, _ := k8sRun(t, s, "FLN-01")
	if !k8sHas(fs, finding.Warn, "net-conf.json makes flannel create HNS network \"flannel.4096\"", "vxlan0") {
		t.Errorf("%v", summaries(fs))
	}
	k8sAtMost(t, fs, finding.Warn)
}

// The flannel fixtures built as upstream leaves a node: no fail and no warn
// from the rules about names and node kind. (TestHealthyNodes should hold
// them to no fail and no warn from every rule.)
func TestHealthyFlannelFixturesNames(t *testing.T) {
	for _, dir := range []string{"flannel-vxlan-default-healthy", "flannel-vxlan-custom-name-healthy", "flannel-hostgw-default-healthy", "nat-only-container-host"} {
		s := formatstest.Load(t, "testdata/scenarios/"+dir)
		for _, id := range []string{"FLN-01", "FLN-02", "OVL-09", "DNS-02", "NAT-05"} {
			fs, _ := k8sRun(t, s, id)
			k8sAtMost(t, fs, finding.Info)
		}
	}
}

// collectlogs.ps1 is the Kubernetes-on-Windows collector: its output with
// only the NAT network is a node whose pod network is missing.
func TestOVL09CollectlogsIsKubernetes(t *testing.T) {
	s := formatstest.Load(t, natHost)
	s.Format = snapshot.FormatCollectlogs
	fs, _ := k8sRun(t, s, "OVL-09")
	if !k8sHas(fs, finding.Fail, "no Overlay or L2Bridge network") {
		t.Errorf("collectlogs output with only NAT: %v", summaries(fs))
	}
}
