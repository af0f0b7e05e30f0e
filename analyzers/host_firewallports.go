package analyzers

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/snapshot"
)

func init() {
	register(&Rule{
		ID: "HOST-10", Title: "Windows Firewall blocks kubelet (TCP 10250) or kube-proxy's health check (TCP 10256)", Severity: finding.Fail,
		Needs: []snapshot.Input{snapshot.InputFirewall},
		Checks: "Every enabled firewall profile that applies to the node's adapter (the one holding the node IP: its network category when known, else every " +
			"profile) lets TCP 10250 (kubelet) in, TCP 10256 (kube-proxy's health check) when the bundle's Services include a LoadBalancer, and the " +
			"healthCheckNodePort of each LoadBalancer Service with externalTrafficPolicy Local: an enabled " +
			"inbound Allow rule for the port, for every program or " +
			"for kubelet.exe / kube-proxy.exe, and no enabled inbound Block rule for it (a block rule wins). Profiles whose default inbound action is Allow and " +
			"disabled profiles are not checked, nor bundles whose firewall.json does not say it gathered the TCP rules (older collectors).",
		Why: "The API server reaches kubelet on 10250 for kubectl logs, exec, port-forward and metrics: blocked, those fail for every pod of the node while the " +
			"node looks Ready. Cloud load balancers of externalTrafficPolicy Cluster Services probe kube-proxy's health check on 10256 (on Windows Server 2019 " +
			"also through the Service VIP, --forward-healthcheck-vip): blocked, they take the node out of those Services. The installers open 10250 only " +
			"(sig-windows-tools PrepareNode.ps1, aks-engine's KubeletAllow10250), so 10256 is judged only where a LoadBalancer Service needs it, and warns. " +
			"For externalTrafficPolicy Local Services the load balancer probes the Service's own healthCheckNodePort instead, which kube-proxy serves " +
			"from a host socket (unlike the NodePort, which VFP handles before the host firewall sees it): blocked, the node's pods of that Service get no traffic.",
		Fix: "New-NetFirewallRule -Name kubelet -DisplayName 'kubelet (TCP 10250)' -Direction Inbound -Protocol TCP -LocalPort 10250 -Action Allow; " +
			"New-NetFirewallRule -Name kube-proxy-health -DisplayName 'kube-proxy health (TCP 10256)' -Direction Inbound -Protocol TCP -LocalPort 10256 -Action Allow; " +
			"for a healthCheckNodePort the same with -LocalPort <port> (or the NodePort range 30000-32767); remove or narrow any block rule for them.",
		Sources: []string{"kubernetes.io Ports and Protocols (kubelet API 10250 from the control plane)",
			"kubernetes pkg/proxy/healthcheck (the health check server on --healthz-port, default 10256)",
			"kubernetes pkg/proxy/winkernel/proxier.go (--forward-healthcheck-vip: the health check through the load balancer VIP; serviceHealthServer.SyncServices with the healthCheckNodePorts)"},
		Check: checkFirewallNodePorts,
		Upstream: []string{
			"kubernetes.io Ports and Protocols: kubelet API TCP 10250, reached by the control plane (logs, exec, port-forward, metrics)",
			"kubernetes pkg/proxy/healthcheck and cmd/kube-proxy options (--healthz-bind-address, port 10256 by default)",
			"kubernetes pkg/proxy/winkernel/proxier.go forwardHealthCheckVip (health check through the Service VIP on Windows Server 2019)",
			"kubernetes pkg/proxy/winkernel/proxier.go syncProxyRules: serviceHealthServer.SyncServices(HealthCheckNodePorts) serves each externalTrafficPolicy Local Service's healthCheckNodePort from the host",
		},
		Guards: []string{
			"only bundles whose firewall.json says it gathered the TCP rules (Collected): older collectors gathered the VXLAN ports' UDP rules only",
			"an allow rule for kubelet.exe or kube-proxy.exe counts as well as one for the port",
			"profiles that are off, or whose default inbound action is Allow, are not judged",
			"only the profile of the adapter holding the node IP, when its category is known",
			"10256 only when the bundle has a LoadBalancer Service, and only a warn: installers open 10250 alone",
			"a healthCheckNodePort only for LoadBalancer Services with externalTrafficPolicy Local that have an ingress address and no loadBalancerClass (the cloud provider's load balancer, which probes it), only when firewall.json says it gathered the NodePort range's TCP rules, and only a warn",
		},
	})
}

// nodeTCPPort is a TCP port of the node's own that the control plane or a
// load balancer reaches, the program that serves it and what fails when
// the firewall drops it.
type nodeTCPPort struct {
	port     int
	program  string
	what     string
	severity finding.Severity
}

// The node's own TCP ports the control plane and load balancers reach.
var nodeTCPPorts = []nodeTCPPort{
	{10250, "kubelet.exe", "kubelet: kubectl logs, exec, port-forward and metrics fail for this node's pods", finding.Fail},
	{10256, "kube-proxy.exe", "kube-proxy's health check: cloud load balancers of LoadBalancer Services take this node out", finding.Warn},
}

func checkFirewallNodePorts(s *snapshot.Snapshot) ([]Issue, error) {
	fw := s.Firewall
	if !fw.HasCollected("TCP", 10250) && !fw.HasCollected("TCP", 10256) {
		return nil, Skip("%s holds no TCP rules (a collector from before HOST-10 gathered the VXLAN ports' only): collect again", fw.Source)
	}
	profiles, adapter := nodeProfiles(s)
	var issues []Issue
	for _, np := range append(nodeTCPPorts[:len(nodeTCPPorts):len(nodeTCPPorts)], healthCheckNodePorts(s)...) {
		if !fw.HasCollected("TCP", np.port) || np.port == 10256 && !hasLoadBalancerService(s) {
			continue
		}
		blocked, blockOrder, unallowed := judgeProfiles(fw, profiles, func(r *snapshot.FirewallRule) bool { return r.CoversPort("TCP", np.port, np.program) })
		where := func(names []string) string { return profileWhere(names, adapter) }
		for _, block := range blockOrder {
			issues = append(issues, Issue{
				Severity: np.severity,
				Summary:  fmt.Sprintf("firewall rule %s blocks inbound TCP %d in %s: %s", ruleName(*block), np.port, where(blocked[block]), np.what),
				Evidence: []finding.Evidence{{File: fw.Source, Object: "firewall rule " + block.Name, Field: "Action", Value: block.Action + " inbound TCP " + strings.Join(block.LocalPorts, ","),
					Expected: fmt.Sprintf("no block rule for TCP %d", np.port)}},
				Remediation: fmt.Sprintf("A block rule wins over any allow rule: remove rule %s or exclude TCP %d from it (Set-NetFirewallPortFilter).", block.Name, np.port),
			})
		}
		if len(unallowed) > 0 {
			issues = append(issues, Issue{
				Severity: np.severity,
				Summary:  fmt.Sprintf("the Windows Firewall is on in %s and no inbound rule allows TCP %d: %s", where(unallowed), np.port, np.what),
				Evidence: []finding.Evidence{{File: fw.Source, Object: "firewall profiles " + strings.Join(unallowed, ", "), Field: fmt.Sprintf("inbound rules for TCP %d", np.port),
					Value: fmt.Sprintf("none of %d collected rules allows it", len(fw.Rules)), Expected: fmt.Sprintf("an enabled Allow rule for TCP %d or %s", np.port, np.program)}},
			})
		}
	}
	return issues, nil
}

// nodeProfiles are the firewall profiles of the node's adapter (the one
// holding the node IP): its connection category when known, else all.
func nodeProfiles(s *snapshot.Snapshot) (map[string]bool, string) {
	ip, _ := netip.ParseAddr(s.Facts.NodeIP.Value)
	return profilesOf(s, ip)
}

// healthCheckNodePorts are the ports kube-proxy answers the cloud load
// balancer's probes on for LoadBalancer Services with externalTrafficPolicy
// Local: a socket of the host, so the host firewall filters it (the
// NodePort itself is VFP's and is not).
func healthCheckNodePorts(s *snapshot.Snapshot) []nodeTCPPort {
	var out []nodeTCPPort
	seen := map[int]bool{}
	for _, svc := range s.Services {
		// Only a cloud provider's load balancer that exists probes it:
		// another class (MetalLB, an NLB in IP mode) may not.
		if !strings.EqualFold(svc.Type, "LoadBalancer") || !strings.EqualFold(svc.ExternalTrafficPolicy, "Local") || svc.HealthCheckNodePort == 0 ||
			svc.LoadBalancerClass != "" || !svc.Ingress || seen[svc.HealthCheckNodePort] {
			continue
		}
		seen[svc.HealthCheckNodePort] = true
		out = append(out, nodeTCPPort{svc.HealthCheckNodePort, "kube-proxy.exe", fmt.Sprintf("the health check of Service %s/%s (externalTrafficPolicy Local): a load balancer that probes it, as the cloud provider's does, finds no healthy backend here and sends this node's pods none of its traffic", svc.Namespace, svc.Name), finding.Warn})
	}
	return out
}

// hasLoadBalancerService: a Service of type LoadBalancer in the bundle.
func hasLoadBalancerService(s *snapshot.Snapshot) bool {
	for _, svc := range s.Services {
		if strings.EqualFold(svc.Type, "LoadBalancer") {
			return true
		}
	}
	return false
}
