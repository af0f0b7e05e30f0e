package analyzers

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/snapshot"
)

func init() {
	register(&Rule{
		ID: "HOST-01", Title: "VFP extension disabled or a filter extension", Severity: finding.Fail,
		Needs:  []snapshot.Input{snapshot.InputHNSNetworks},
		Checks: "Overlay, L2Bridge and L2Tunnel networks have the VFP switch extension enabled (matched by GUID or name, names are localised); the client-SKU 'Filter' extension is a warning. NAT and ICS networks are not checked: VFP is disabled there by design.",
		Why:    "Overlay and l2bridge forwarding is done by VFP; without it endpoints fail to be created or have no connectivity.",
		Fix:    "Use Windows Server (not a client SKU), recreate the network so that HNS enables VFP, and keep VFP enabled on one vSwitch only.",
		Sources: []string{"https://github.com/microsoft/Windows-Containers/issues/608", "https://github.com/projectcalico/calico/issues/8465",
			"https://github.com/microsoft/SDN/issues/582"},
		Check: checkVFPExtension,
		Upstream: []string{
			"Windows HNS/vSwitch (Overlay, L2Bridge and L2Tunnel forwarding is done by the VFP switch extension; NAT networks run without it)",
		},
		Guards: []string{
			"NAT, ICS and other network types are not checked: VFP is disabled on them by design",
			"networks whose extensions are not shown (HNS V2 output, hidden lists) are not judged",
			"VFP is matched by its GUIDs or by name, so localised extension names are recognised",
			"VFP as a filter extension (client SKU) is a warning",
			guardLinux,
		},
	})
	register(&Rule{
		ID: "HOST-02", Title: "Local endpoint not attached, or VFP port blocked", Severity: finding.Fail,
		Needs:   []snapshot.Input{snapshot.InputHNSEndpoints},
		Checks:  "Every local endpoint is Attached (2) or AttachedSharing (3, a running pod); no VFP port is Blocked. Remote endpoints and unknown states are not checked.",
		Why:     "An endpoint left Created, Detached or Degraded, or a blocked VFP port, leaves the pod without network while HNS still lists it.",
		Fix:     "Delete and recreate the pod; if the host vNIC or external port is blocked, recreate the HNS network or restart HNS (then the CNI agent and kube-proxy).",
		Sources: []string{"microsoft/SDN networkhealth.ps1 EndpointStateTest, EndpointVfpPortStateTest", "https://github.com/projectcalico/calico/issues/11203"},
		Check:   checkEndpointState,
		Upstream: []string{
			"microsoft/SDN Kubernetes/windows/debug/networkmonitor/networkhealth.ps1 EndpointStateTest, EndpointVfpPortStateTest",
			"Calico felix/dataplane/windows/endpoint_mgr.go RefreshHnsEndpointCache (Attached and AttachedSharing are the live states)",
		},
		Guards: []string{
			"endpoint State 3 (AttachedSharing, a running pod) is healthy, as is 2 (Attached); networkhealth.ps1 accepts only 3",
			"remote endpoints are not checked",
			"endpoints whose State is not shown (0) are not judged",
			"VFP ports whose Blocked value is not shown are not judged",
			guardLinux,
		},
	})
}

var vfpExtensionIDs = map[string]bool{"E9B59CFA-2BE1-4B21-828F-B6FBDBDDC017": true, "F74F241B-440F-4433-BB28-00F89EAD20D8": true}

func isVFP(e snapshot.Extension) bool {
	return vfpExtensionIDs[e.ID] || strings.Contains(strings.ToUpper(e.Name), "VFP")
}

func checkVFPExtension(s *snapshot.Snapshot) ([]Issue, error) {
	var issues []Issue
	for _, n := range s.Networks {
		if n.Type != snapshot.TypeOverlay && n.Type != snapshot.TypeL2Bridge && n.Type != snapshot.TypeL2Tunnel {
			continue
		}
		if len(n.Extensions) == 0 || !n.Knows("Extensions") {
			continue // V2 does not report extensions
		}
		var vfp *snapshot.Extension
		for i := range n.Extensions {
			if isVFP(n.Extensions[i]) {
				vfp = &n.Extensions[i]
			}
		}
		switch {
		case vfp == nil:
			issues = append(issues, Issue{Summary: fmt.Sprintf("%s network %s has no VFP switch extension", strings.ToLower(n.Type), n.Name),
				Evidence: []finding.Evidence{{File: networkFile(n), Object: networkObject(n), Field: "Extensions", Value: extensionNames(n), Expected: "Microsoft Azure VFP Switch Extension, enabled"}},
				Subjects: []string{"network:" + n.Name}})
		case !vfp.Enabled:
			issues = append(issues, Issue{Summary: fmt.Sprintf("the VFP switch extension is disabled on %s network %s", strings.ToLower(n.Type), n.Name),
				Evidence: []finding.Evidence{{File: networkFile(n), Object: networkObject(n), Field: "Extensions[" + vfp.Name + "].IsEnabled", Value: "False", Expected: "True"}},
				Subjects: []string{"network:" + n.Name}})
		case strings.Contains(strings.ToLower(vfp.Name), "filter extension"):
			issues = append(issues, Issue{Severity: finding.Warn,
				Summary:  fmt.Sprintf("network %s runs VFP as a filter extension (%s): a client SKU, where overlay and l2bridge are not supported", n.Name, vfp.Name),
				Evidence: []finding.Evidence{{File: networkFile(n), Object: networkObject(n), Field: "Extensions[].Name", Value: vfp.Name}},
				Subjects: []string{"network:" + n.Name}})
		}
	}
	return issues, nil
}

func extensionNames(n *snapshot.Network) string {
	var parts []string
	for _, e := range n.Extensions {
		parts = append(parts, e.Name)
	}
	return strings.Join(parts, ", ")
}

var endpointStates = map[int64]string{1: "Created", 2: "Attached", 3: "AttachedSharing", 4: "Detached", 5: "Degraded", 6: "Destroyed"}

func checkEndpointState(s *snapshot.Snapshot) ([]Issue, error) {
	var issues []Issue
	for _, e := range s.Endpoints {
		if e.IsRemote || e.State == 0 || e.State == 2 || e.State == 3 {
			continue
		}
		name := endpointStates[e.State]
		if name == "" {
			name = "unknown"
		}
		issues = append(issues, Issue{Summary: fmt.Sprintf("local endpoint %s (%s) on network %s is in state %d (%s), not attached: its pod has no network",
			e.Name, addrOrNone(e.IP), e.NetworkName, e.State, name),
			Evidence: []finding.Evidence{{File: e.Refs[len(e.Refs)-1].File, Object: "endpoint " + e.ID, Field: "State", Value: strconv.FormatInt(e.State, 10) + " " + name, Expected: "2 Attached or 3 AttachedSharing"}},
			Subjects: []string{"address:" + addrOrNone(e.IP)}})
	}
	for _, p := range s.VFPPorts {
		if p.Blocked == nil || !*p.Blocked {
			continue
		}
		issues = append(issues, Issue{Summary: fmt.Sprintf("VFP port %s (%s) is blocked", p.Name, p.FriendlyName),
			Evidence: []finding.Evidence{{File: p.Source, Object: "VFP port " + p.Name, Field: "Blocked", Value: "TRUE", Expected: "FALSE", Note: "endpoint " + p.EndpointID}}})
	}
	return issues, nil
}
