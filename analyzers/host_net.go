package analyzers

import (
	"fmt"
	"net/netip"
	"sort"
	"strings"

	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/snapshot"
)

func init() {
	register(&Rule{
		ID: "HOST-05", Title: "Overlay adapter has no default gateway while another adapter has it", Severity: finding.Fail,
		Needs: []snapshot.Input{snapshot.InputHNSNetworks, snapshot.InputHostAdapters},
		Checks: "For each Overlay, L2Bridge and L2Tunnel network, the adapter holding its ManagementIP has a default gateway (a gateway on the adapter or a 0.0.0.0/0 route through it) " +
			"whenever another adapter has one (nodes where no adapter shows a default route are not judged). No Service external or load balancer ingress IP that has an HNS load balancer " +
			"is also an address of a host adapter or routed as a /32 to a local interface.",
		Why: "Pods' outbound NAT traffic leaves through the vSwitch's adapter. When the vSwitch was built on a NIC without a default gateway (a second NIC, a Vagrant private network) " +
			"while the default route uses another NIC, pods reach their subnet and the overlay but nothing beyond: no internet, no cloud services, no API server outside the subnet.",
		Fix: "Bind the vSwitch to the NIC that has the default route (flannel: --iface; Calico: VXLAN_ADAPTER; l2bridge: the CNI's InterfaceName), or give the overlay adapter a gateway " +
			"(New-NetRoute -DestinationPrefix 0.0.0.0/0 -InterfaceAlias '<vEthernet adapter>' -NextHop <gateway>).",
		Sources: []string{"https://github.com/kubernetes-sigs/sig-windows-dev-tools/issues/276", "https://github.com/rancher/rancher/issues/30514",
			"https://docs.tigera.io/calico/latest/getting-started/kubernetes/windows-calico/limitations"},
		Check: checkManagementGateway,
		Upstream: []string{
			"Windows HNS (OutBoundNAT sends pod traffic out through the vSwitch's adapter)",
			"Calico node/windows-packaging/CalicoWindows/config.ps1 (VXLAN_ADAPTER); flannel --iface (the adapter the network is created on)",
			"kubernetes pkg/proxy/winkernel/proxier.go syncProxyRules (load balancers for Service external and ingress IPs)",
		},
		Guards: []string{
			"only Overlay, L2Bridge and L2Tunnel networks whose ManagementIP is on a host adapter (the rest is OVL-01's and OVL-10's)",
			"not judged when no other adapter (Up, or of unknown status) has a default route",
			"only external and ingress IPs that have an HNS load balancer",
			guardLinux,
		},
	})
	register(&Rule{
		ID: "HOST-09", Title: "HNS network name collision, missing adapter or LBFO team", Severity: finding.Fail,
		Needs: []snapshot.Input{snapshot.InputHNSNetworks},
		Checks: "No two HNS networks share a name; the adapter a network was created on (NetworkAdapterName) is one of the host's adapters (or its vEthernet); " +
			"a network on an LBFO team (Multiplexor Driver) is a warning.",
		Why: "With two networks of one name, the CNI plugin and kube-proxy pick either (hcnCreateNetwork: a network with this name already exists, 0x803b0010); " +
			"a network whose adapter is gone or renamed cannot be recreated after a reboot (An adapter was not found); LBFO teams are not supported under a Hyper-V switch on Windows Server 2022 and later.",
		Fix: "Remove the stale network (Get-HnsNetwork | ? Name -eq '<name>' | Remove-HnsNetwork), restart HNS, then the CNI agent and kube-proxy; pass the adapter's real name " +
			"(Get-NetAdapter) to the installer; replace an LBFO team with Switch Embedded Teaming.",
		Sources: []string{"https://github.com/microsoft/SDN/issues/269", "https://github.com/microsoft/SDN/issues/194", "https://github.com/microsoft/hcsshim/issues/850",
			"https://github.com/flannel-io/flannel/issues/1966", "https://github.com/projectcalico/calico/issues/9120"},
		Check: checkNetworkAdapters,
		Upstream: []string{
			"microsoft/hcsshim hcn/hcnnetwork.go GetNetworkByName (a Name filter; the first match is returned)",
			"flannel pkg/backend/vxlan/device_windows.go (NetAdapterName network policy); Calico node-service.ps1 (New-HNSNetwork -AdapterName)",
		},
		Guards: []string{
			"networks without a name are not compared",
			"the adapter check runs only with host adapters in the bundle",
			"NAT, ICS and Private networks, and networks without NetworkAdapterName, are not judged for their adapter",
			"the adapter's vEthernet (<name>) counts as the adapter being present",
			"an LBFO team is a warning",
			guardLinux,
		},
	})
}

// hasDefaultRoute says whether an adapter has a default gateway, from the
// adapter itself or the route table.
func hasDefaultRoute(s *snapshot.Snapshot, ad *snapshot.HostAdapter) (netip.Addr, bool) {
	for _, g := range ad.Gateways {
		if g.Is4() && !g.IsUnspecified() {
			return g, true
		}
	}
	for _, r := range s.Routes {
		if r.Destination.Bits() != 0 || !r.Destination.Addr().Is4() {
			continue
		}
		if (r.IfIndex != 0 && r.IfIndex == ad.IfIndex) || (r.Interface != "" && strings.EqualFold(r.Interface, ad.Name)) {
			return r.NextHop, true
		}
	}
	return netip.Addr{}, false
}

func checkManagementGateway(s *snapshot.Snapshot) ([]Issue, error) {
	var issues []Issue
	for _, n := range s.Networks {
		if n.Type != snapshot.TypeOverlay && n.Type != snapshot.TypeL2Bridge && n.Type != snapshot.TypeL2Tunnel || !n.ManagementIP.IsValid() {
			continue
		}
		mgmt := s.AdapterWithAddr(n.ManagementIP)
		if mgmt == nil {
			continue // OVL-01 and OVL-10 judge a ManagementIP on no adapter
		}
		if _, ok := hasDefaultRoute(s, mgmt); ok {
			continue
		}
		var other *snapshot.HostAdapter
		var gw netip.Addr
		for _, ad := range s.Adapters {
			if ad == mgmt || !strings.EqualFold(ad.Status, "Up") && ad.Status != "" {
				continue
			}
			if g, ok := hasDefaultRoute(s, ad); ok {
				other, gw = ad, g
				break
			}
		}
		if other == nil {
			continue
		}
		subnet := "its own subnet"
		for _, p := range mgmt.Addresses {
			if p.Addr() == n.ManagementIP {
				subnet = p.Masked().String()
			}
		}
		issues = append(issues, Issue{
			Summary: fmt.Sprintf("%s network %s is bound to '%s' (%s), which has no default gateway, while the default route leaves through '%s' (via %s): pods' traffic beyond %s (the internet, cloud services) is dropped",
				strings.ToLower(n.Type), n.Name, mgmt.Name, n.ManagementIP, other.Name, gw, subnet),
			Evidence: []finding.Evidence{
				{File: snapshot.FileAdapters, Object: "adapter " + mgmt.Name, Field: "Gateways and 0.0.0.0/0 routes", Value: "none", Expected: "a default gateway", Note: "holds ManagementIP " + n.ManagementIP.String() + " of network " + n.Name},
				{File: snapshot.FileAdapters, Object: "adapter " + other.Name, Field: "default gateway", Value: gw.String()},
			},
			Subjects: []string{"network:" + n.Name, "address:" + n.ManagementIP.String()},
		})
	}
	return append(issues, ingressOnHost(s)...), nil
}

// ingressOnHost finds Service external IPs that the host itself claims
// (the GCE guest agent programs forwarded load balancer IPs on the NIC):
// the host answers them and kube-proxy's load balancer is bypassed.
func ingressOnHost(s *snapshot.Snapshot) []Issue {
	byVIP := loadBalancersByVIP(s)
	var issues []Issue
	for _, svc := range s.Services {
		for _, ipText := range svc.ExternalIPs {
			ip, err := netip.ParseAddr(ipText)
			if err != nil || len(byVIP[ipText]) == 0 {
				continue
			}
			where := ""
			if ad := s.AdapterWithAddr(ip); ad != nil {
				where = "an address of adapter '" + ad.Name + "'"
			}
			for _, r := range s.Routes {
				if where == "" && r.Destination.IsSingleIP() && r.Destination.Addr() == ip && (!r.NextHop.IsValid() || r.NextHop.IsUnspecified()) {
					where = "routed as a /32 to local interface '" + r.Interface + "'"
				}
			}
			if where == "" {
				continue
			}
			issues = append(issues, Issue{
				Summary: fmt.Sprintf("Service %s/%s's external IP %s is %s: the host answers it itself and kube-proxy's load balancer for it is bypassed, so it works only sometimes",
					svc.Namespace, svc.Name, ip, where),
				Evidence: []finding.Evidence{{File: snapshot.FileKubeServices, Object: "Service " + svc.Namespace + "/" + svc.Name, Field: "external/ingress IP", Value: ip.String(),
					Expected: "not configured on the host", Note: where}},
				Subjects:    []string{"service:" + svc.Namespace + "/" + svc.Name, "vip:" + ip.String()},
				Remediation: "Stop the host from claiming load balancer IPs (GCE: disable the guest agent's IP forwarding for them, or remove the address/route), then restart kube-proxy.",
			})
		}
	}
	return issues
}

func checkNetworkAdapters(s *snapshot.Snapshot) ([]Issue, error) {
	var issues []Issue
	byName := map[string][]*snapshot.Network{}
	for _, n := range s.Networks {
		if n.Name != "" {
			byName[n.Name] = append(byName[n.Name], n)
		}
	}
	names := make([]string, 0, len(byName))
	for name := range byName {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		nets := byName[name]
		if len(nets) < 2 {
			continue
		}
		var ids []string
		var ev []finding.Evidence
		for _, n := range nets {
			ids = append(ids, n.ID)
			ev = append(ev, finding.Evidence{File: networkFile(n), Object: networkObject(n), Field: "Name", Value: n.Name, Expected: "a name no other network has"})
		}
		issues = append(issues, Issue{
			Summary:  fmt.Sprintf("%d HNS networks are named %s (%s): the CNI plugin and kube-proxy may use either", len(nets), name, strings.Join(ids, ", ")),
			Evidence: ev, Subjects: []string{"network:" + name},
		})
	}
	if !s.Has(snapshot.InputHostAdapters) || len(s.Adapters) == 0 {
		return issues, nil
	}
	adapters := map[string]*snapshot.HostAdapter{}
	for _, ad := range s.Adapters {
		adapters[strings.ToLower(ad.Name)] = ad
	}
	for _, n := range s.Networks {
		if n.AdapterName == "" || n.Type == snapshot.TypeNAT || n.Type == snapshot.TypeICS || n.Type == snapshot.TypePrivate {
			continue
		}
		ad := adapters[strings.ToLower(n.AdapterName)]
		vnic := adapters[strings.ToLower("vEthernet ("+n.AdapterName+")")]
		switch {
		case ad == nil && vnic == nil:
			issues = append(issues, Issue{
				Summary:  fmt.Sprintf("%s network %s was created on adapter '%s', which the host does not have: it cannot be recreated after a reboot or an HNS restart", strings.ToLower(n.Type), n.Name, n.AdapterName),
				Evidence: []finding.Evidence{{File: networkFile(n), Object: networkObject(n), Field: "NetworkAdapterName", Value: n.AdapterName, Expected: "one of " + adapterNames(s)}},
				Subjects: []string{"network:" + n.Name},
			})
		case ad != nil && strings.Contains(strings.ToLower(ad.Description), "multiplexor driver"):
			issues = append(issues, Issue{Severity: finding.Warn,
				Summary:  fmt.Sprintf("%s network %s is on '%s', an LBFO team (%s): not supported under a Hyper-V switch on Windows Server 2022 and later", strings.ToLower(n.Type), n.Name, ad.Name, ad.Description),
				Evidence: []finding.Evidence{{File: snapshot.FileAdapters, Object: "adapter " + ad.Name, Field: "InterfaceDescription", Value: ad.Description, Expected: "a physical NIC or a SET team"}},
				Subjects: []string{"network:" + n.Name},
			})
		}
	}
	return issues, nil
}

func adapterNames(s *snapshot.Snapshot) string {
	var names []string
	for _, ad := range s.Adapters {
		names = append(names, "'"+ad.Name+"'")
	}
	return strings.Join(names, ", ")
}
