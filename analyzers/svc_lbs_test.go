package analyzers

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/formats/formatstest"
	"github.com/wincni/diag/snapshot"
)

// A load balancer without port mappings cannot come from the fixtures'
// V1 policy lists (an ELB policy always has ports), so it is built here.
func TestLoadBalancerWithoutPortMappings(t *testing.T) {
	s := &snapshot.Snapshot{
		Inputs: map[snapshot.Input]string{snapshot.InputHNSLoadBalancers: "hns/v2/loadbalancers.json", snapshot.InputHNSEndpoints: "hns/v2/endpoints.json"},
		LoadBalancers: []*snapshot.LoadBalancer{
			{ID: "A", FrontendVIPs: []string{"10.96.0.20"}, Ref: snapshot.Ref{File: "hns/v2/loadbalancers.json"}},
			{ID: "B", FrontendVIPs: []string{"10.96.0.21"}, PortMappings: []snapshot.PortMapping{{Protocol: 6, ExternalPort: 80}}, Unknown: nil},
		},
	}
	issues, err := checkStaleLoadBalancers(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(issues) != 1 || !strings.Contains(issues[0].Summary, "A (10.96.0.20) has no port mappings") {
		t.Fatalf("got %+v", issues)
	}
	// Hidden by Format-List: not known to be empty, so not reported.
	s.LoadBalancers[0].Unknown = []string{"PortMappings"}
	if issues, _ := checkStaleLoadBalancers(s); len(issues) != 0 {
		t.Fatalf("hidden PortMappings reported: %+v", issues)
	}
}

func findRule(res finding.Result, id string) ([]string, string, bool) {
	var sums []string
	for _, f := range res.Findings {
		if f.ID == id {
			sums = append(sums, f.Summary)
		}
	}
	for _, s := range res.Skipped {
		if s.ID == id {
			return sums, s.Reason, true
		}
	}
	return sums, "", false
}

// When the node's address is only the ManagementIP that OVL-01 reports as
// wrong, SVC-02 must not name a second cause: it is skipped, and says why.
func TestSourceVIPDefersToOVL01(t *testing.T) {
	for _, dir := range []string{"svc02-ovl01-guessed-node-ip", "svc02-ovl01-hns-only"} {
		res := Run([]*snapshot.Snapshot{formatstest.Load(t, filepath.Join("testdata", "scenarios", dir))}, Selection{})
		sums, reason, skipped := findRule(res, "SVC-02")
		if !skipped || len(sums) > 0 {
			t.Fatalf("%s: SVC-02 findings %v, skipped %v", dir, sums, skipped)
		}
		for _, want := range []string{"OVL-01", "ManagementIP 10.0.2.15", "10.20.30.11"} {
			if !strings.Contains(reason, want) {
				t.Errorf("%s: skip reason lacks %q: %s", dir, want, reason)
			}
		}
	}
}

// kube-proxy's Service VIP endpoints are recognised without the Services
// (by the service CIDR) and without the service CIDR too (host MAC and this
// node's address as ProviderAddress); a deleted pod's endpoint still is not.
func TestServiceVIPEndpointsWithoutServices(t *testing.T) {
	s := formatstest.Load(t, filepath.Join("testdata", "scenarios", "svc06-deleted-service-vip"))
	s.Services = nil
	delete(s.Inputs, snapshot.InputKubeServices)
	check := func(what string) {
		t.Helper()
		issues, err := checkStaleLoadBalancers(s)
		if err != nil {
			t.Fatal(err)
		}
		if len(issues) != 1 || !strings.Contains(issues[0].Summary, "10.244.2.9") {
			t.Fatalf("%s: %+v", what, issues)
		}
		for _, vip := range []string{"10.96.77.7", "10.96.0.1,", "10.96.200.7"} {
			if strings.Contains(issues[0].Summary, vip) {
				t.Errorf("%s: %s reported: %s", what, vip, issues[0].Summary)
			}
		}
	}
	check("without Services")
	s.Facts.ServiceCIDR = snapshot.Fact{}
	check("without Services and service CIDR")
	s.Adapters = nil
	check("without Services, service CIDR and host adapters")
}

// Without kube-proxy's flags the source VIP is an address of the pod subnet:
// such a SourceVIP is not stale, one outside it and off the node is.
func TestStaleSourceVIPWithoutKubeProxy(t *testing.T) {
	s := formatstest.Load(t, filepath.Join("testdata", "scenarios", "kubeproxy-overlay-healthy"))
	s.KubeProxy, s.Facts.SourceVIP = nil, snapshot.Fact{}
	if issues, err := checkSourceVIPs(s); err != nil || len(issues) != 0 {
		t.Fatalf("healthy node without kube-proxy flags: %+v %v", issues, err)
	}
	s.LoadBalancers[1].SourceVIP = "172.16.5.5"
	issues, err := checkSourceVIPs(s)
	if err != nil || len(issues) != 1 || !strings.Contains(issues[0].Summary, "SourceVIP 172.16.5.5, neither in pod subnet 10.244.1.0/24") {
		t.Fatalf("got %+v %v", issues, err)
	}
}

// TestJudgeProfilesScopedBlockAndAnyProtocol: a block rule for some peers
// only is not a block for all; an any-protocol allow rule for kubelet.exe
// opens its port.
func TestJudgeProfilesScopedBlockAndAnyProtocol(t *testing.T) {
	fw := &snapshot.HostFirewall{
		Profiles: []snapshot.FirewallProfile{{Name: "Domain", Enabled: true}},
		Rules: []snapshot.FirewallRule{
			{Name: "block-lab", Enabled: true, Direction: "Inbound", Action: "Block", Profile: "Any", Protocol: "TCP", LocalPorts: []string{"10250"}, Program: "Any", RemoteAddresses: []string{"192.0.2.0/24"}},
			{Name: "kubelet", Enabled: true, Direction: "Inbound", Action: "Allow", Profile: "Any", Protocol: "Any", Program: `%SystemDrive%\k\kubelet.exe`},
		},
	}
	blocked, order, unallowed := judgeProfiles(fw, map[string]bool{"domain": true}, func(r *snapshot.FirewallRule) bool { return r.CoversPort("TCP", 10250, "kubelet.exe") })
	if len(blocked) != 0 || len(order) != 0 || len(unallowed) != 0 {
		t.Errorf("blocked %v unallowed %v", order, unallowed)
	}
}
