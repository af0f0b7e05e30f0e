package analyzers

import (
	"net/netip"
	"os"
	"strings"
	"testing"

	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/formats/formatstest"
	"github.com/wincni/diag/snapshot"
)

// The catalog's global false-positive guards (failure-modes.md §2), each
// checked on data that has the benign pattern: the pattern must be present
// (or the test proves nothing) and the rule it could mislead must stay silent.

func findingsFor(res finding.Result, id string) []finding.Finding {
	var out []finding.Finding
	for _, f := range res.Findings {
		if f.ID == id {
			out = append(out, f)
		}
	}
	return out
}

const healthy = "testdata/scenarios/calico-healthy"

// §2.1: a NAT network has VFP disabled; only pod networks need it.
func TestGuardNATNetworkWithoutVFP(t *testing.T) {
	s := formatstest.Load(t, healthy)
	found := false
	for _, n := range s.Networks {
		if strings.EqualFold(n.Type, snapshot.TypeNAT) {
			for _, e := range n.Extensions {
				found = found || (isVFP(e) && !e.Enabled)
			}
		}
	}
	if !found {
		t.Fatal("fixture lost its NAT network with VFP disabled")
	}
	if fs := findingsFor(Run([]*snapshot.Snapshot{s}, Selection{}), "HOST-01"); len(fs) > 0 {
		t.Errorf("HOST-01 on a NAT network: %v", summaries(fs))
	}
}

// §2.2: endpoint State 3 (AttachedSharing) is healthy.
func TestGuardEndpointState3(t *testing.T) {
	s := formatstest.Load(t, healthy)
	found := false
	for _, e := range s.Endpoints {
		found = found || (!e.IsRemote && e.State == 3)
	}
	if !found {
		t.Fatal("fixture lost its local endpoint in state 3")
	}
	if fs := findingsFor(Run([]*snapshot.Snapshot{s}, Selection{}), "HOST-02"); len(fs) > 0 {
		t.Errorf("HOST-02 on state 3: %v", summaries(fs))
	}
}

// §2.3: IsApplied: False on a policy list alone is not an error.
func TestGuardIsAppliedFalse(t *testing.T) {
	raw, err := os.ReadFile(healthy + "/hns/v1/policylists.json")
	if err != nil || !strings.Contains(strings.ReplaceAll(string(raw), " ", ""), `"IsApplied":false`) {
		t.Fatalf("fixture lost its IsApplied: false policy lists (%v)", err)
	}
	s := formatstest.Load(t, healthy)
	if fs := findingsFor(Run([]*snapshot.Snapshot{s}, Selection{}), "SVC-03"); len(fs) > 0 {
		t.Errorf("SVC-03 on IsApplied false: %v", summaries(fs))
	}
}

// §2.4: a Service VIP's (or node IP's) remote endpoint carries this node's
// own address as PA; OVL-08 must not report it.
func TestGuardServiceVIPRemoteEndpointWithOwnPA(t *testing.T) {
	s := formatstest.Load(t, healthy)
	n := s.CNINetwork()
	if n == nil || !s.Facts.ServiceCIDR.Prefix().IsValid() {
		t.Fatal("fixture lost its network or service CIDR")
	}
	s.Endpoints = append(s.Endpoints,
		&snapshot.Endpoint{EndpointDetail: &snapshot.EndpointDetail{}, ID: "G4-VIP", IsRemote: true, IP: netip.MustParseAddr("10.96.0.10"), ProviderAddress: n.ManagementIP, NetworkID: n.ID, Refs: []snapshot.Ref{{File: "x"}}},
		&snapshot.Endpoint{EndpointDetail: &snapshot.EndpointDetail{}, ID: "G4-NODE", IsRemote: true, IP: netip.MustParseAddr("10.20.30.10"), ProviderAddress: n.ManagementIP, NetworkID: n.ID, Refs: []snapshot.Ref{{File: "x"}}})
	if fs := findingsFor(Run([]*snapshot.Snapshot{s}, Selection{}), "OVL-08"); len(fs) > 0 {
		t.Errorf("OVL-08 on a service VIP or node IP: %v", summaries(fs))
	}
}

// §2.5: one load balancer row per service port, and host-level load
// balancers without a VIP, are not duplicates.
func TestGuardLoadBalancerRowsPerPort(t *testing.T) {
	s := formatstest.Load(t, healthy)
	ref := snapshot.Ref{File: "hns/v2/loadbalancers.json"}
	s.LoadBalancers = append(s.LoadBalancers,
		&snapshot.LoadBalancer{ID: "G5-A", FrontendVIPs: []string{"10.104.0.5"}, PortMappings: []snapshot.PortMapping{{Protocol: 6, ExternalPort: 80}}, Ref: ref},
		&snapshot.LoadBalancer{ID: "G5-B", FrontendVIPs: []string{"10.104.0.5"}, PortMappings: []snapshot.PortMapping{{Protocol: 6, ExternalPort: 443}}, Ref: ref},
		&snapshot.LoadBalancer{ID: "G5-C", FrontendVIPs: []string{"10.104.0.5"}, PortMappings: []snapshot.PortMapping{{Protocol: 17, ExternalPort: 80}}, Ref: ref},
		&snapshot.LoadBalancer{ID: "G5-N1", PortMappings: []snapshot.PortMapping{{Protocol: 6, ExternalPort: 30080}}, Ref: ref},
		&snapshot.LoadBalancer{ID: "G5-N2", PortMappings: []snapshot.PortMapping{{Protocol: 6, ExternalPort: 30443}}, Ref: ref})
	if fs := findingsFor(Run([]*snapshot.Snapshot{s}, Selection{}), "SVC-06"); len(fs) > 0 {
		t.Errorf("SVC-06 on per-port rows: %v", summaries(fs))
	}
}

// §2.6: a localized VFP extension name is still the VFP extension (by ID).
func TestGuardLocalizedExtensionName(t *testing.T) {
	s := formatstest.Load(t, healthy)
	renamed := false
	for _, n := range s.Networks {
		for i, e := range n.Extensions {
			if isVFP(e) && vfpExtensionIDs[e.ID] {
				n.Extensions[i].Name = "Microsoft Azure VFP-Switcherweiterung" // de-DE
				if !strings.EqualFold(n.Type, snapshot.TypeNAT) {
					n.Extensions[i].Name = "Microsoft Azure 虚拟筛选平台交换机扩展" // zh-CN, no "VFP" in it
				}
				renamed = true
			}
		}
	}
	if !renamed {
		t.Fatal("fixture has no VFP extension known by ID")
	}
	if fs := findingsFor(Run([]*snapshot.Snapshot{s}, Selection{}), "HOST-01"); len(fs) > 0 {
		t.Errorf("HOST-01 on a localized name: %v", summaries(fs))
	}
}

// §2.7: remote endpoints carry synthetic MACs (02-11-<ip>, 00-11-22-33-44-55);
// no rule may treat them as a VTEP or DR MAC mismatch.
func TestGuardSyntheticRemoteMACs(t *testing.T) {
	s := formatstest.Load(t, healthy)
	n := s.CNINetwork()
	peer := n.RemoteSubnetRoutes[0]
	s.Endpoints = append(s.Endpoints,
		&snapshot.Endpoint{EndpointDetail: &snapshot.EndpointDetail{}, ID: "G7-A", IsRemote: true, IP: peer.DestinationPrefix.Addr().Next().Next(), MAC: "02-11-64-f4-31-02", ProviderAddress: peer.ProviderAddress, NetworkID: n.ID, Refs: []snapshot.Ref{{File: "x"}}},
		&snapshot.Endpoint{EndpointDetail: &snapshot.EndpointDetail{}, ID: "G7-B", IsRemote: true, IP: peer.DestinationPrefix.Addr().Next().Next().Next(), MAC: "00-11-22-33-44-55", ProviderAddress: peer.ProviderAddress, NetworkID: n.ID, Refs: []snapshot.Ref{{File: "x"}}})
	// They are backends, as kube-proxy leaves them.
	var backends []string
	for _, id := range s.LoadBalancers[0].EndpointIDs.All() {
		backends = append(backends, id)
	}
	s.LoadBalancers[0].EndpointIDs = snapshot.NewEndpointIDs(append(backends, "G7-A", "G7-B")...)
	for _, f := range Run([]*snapshot.Snapshot{s}, Selection{}).Findings {
		t.Errorf("%s on synthetic remote MACs: %s", f.ID, f.Summary)
	}
}

// SVC-02 follows kube-proxy's own rule: a remote backend that no remote
// subnet route covers counts as external, so the node's address is the
// right SourceVIP even for a pod address (the missing route is OVL-02's
// finding, not a wrong SourceVIP).
func TestSourceVIPFollowsKubeProxy(t *testing.T) {
	s := formatstest.Load(t, healthy)
	n := s.CNINetwork()
	if len(n.RemoteSubnetRoutes) == 0 || len(s.LoadBalancers) == 0 {
		t.Fatal("fixture has no route or load balancer")
	}
	n.RemoteSubnetRoutes = nil
	for _, lb := range s.LoadBalancers {
		lb.SourceVIP = n.ManagementIP.String()
	}
	if fs := findingsFor(Run([]*snapshot.Snapshot{s}, Selection{Only: []string{"SVC-02"}}), "SVC-02"); len(fs) > 0 {
		t.Errorf("SVC-02 without routes: %v", summaries(fs))
	}
	// With the routes back, the same SourceVIP on pod backends is wrong.
	s = formatstest.Load(t, healthy)
	for _, lb := range s.LoadBalancers {
		lb.SourceVIP = s.CNINetwork().ManagementIP.String()
	}
	if fs := findingsFor(Run([]*snapshot.Snapshot{s}, Selection{Only: []string{"SVC-02"}}), "SVC-02"); len(fs) != 2 {
		t.Errorf("SVC-02 on node SourceVIP for kube-dns: %v", summaries(fs))
	}
}
