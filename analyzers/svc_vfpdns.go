package analyzers

import (
	"fmt"
	"strings"

	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/snapshot"
)

func init() {
	register(&Rule{
		ID: "SVC-11", Title: "Pod VFP port without kube-proxy's DNS load balancer rules", Severity: finding.Fail,
		Needs: []snapshot.Input{snapshot.InputVFP, snapshot.InputHNSEndpoints, snapshot.InputKubeServices},
		Checks: "For every local endpoint whose VFP port was dumped with an LB_DSR layer whose LB_DSR_IPv4_OUT group holds rules (kube-proxy's load " +
			"balancers reach this port), that group has the DNS rules of the cluster's DNS Service: a rule named ..._53_53_6 for TCP 53 and ..._53_53_17 " +
			"for UDP 53, for each protocol the Service (kube-dns, or the Service of the DNS service IP) offers. Ports without such a layer or group, " +
			"and bundles without the DNS Service, are not judged.",
		Why: "kube-proxy's load balancers reach a pod through VFP rules on the pod's own port. When HNS did not program the DNS ones on a port " +
			"(a known HNS defect after endpoint churn), that pod's name lookups time out while every other pod resolves, and HNS's load balancer " +
			"list looks right.",
		Fix:     "Restart-Service -Force hns (then kube-proxy reprograms the rules); if it recurs, update the node (the HNS fixes ship in cumulative updates).",
		Sources: []string{"microsoft/SDN Kubernetes/windows/debug/networkmonitor/networkhealth.ps1 CheckVfpDnsRuleMissing (LB_DSR / LB_DSR_IPv4_OUT, RULE.*53_53_6 and 53_53_17)"},
		Check:   checkVFPDNSRules,
		Upstream: []string{
			"microsoft/SDN Kubernetes/windows/debug/networkmonitor/networkhealth.ps1 CheckVfpDnsRuleMissing: vfpctrl /port <port> /layer LB_DSR /group LB_DSR_IPv4_OUT /list-rule must hold RULE ...53_53_6 and ...53_53_17 on every local endpoint's port",
			"kubernetes pkg/proxy/winkernel: the kube-dns ClusterIP load balancers (TCP and UDP 53) are programmed by HNS into each local port's LB_DSR layer",
		},
		Guards: []string{
			"only ports dumped with an LB_DSR layer whose LB_DSR_IPv4_OUT group has rules: where kube-proxy's load balancers do not reach the port's VFP, nothing is expected",
			"only with the cluster DNS Service in the bundle, and only the protocols its port 53 offers",
			"only ports a local endpoint owns",
		},
	})
}

// dnsProtocols are the protocols ("6", "17") of the cluster DNS Service's
// port 53, and its name; nil when the bundle has no such Service.
func dnsProtocols(s *snapshot.Snapshot) (map[string]bool, string) {
	dnsIP := s.Facts.DNSServiceIP.Value
	for _, svc := range s.Services {
		isDNS := svc.Namespace == "kube-system" && svc.Name == "kube-dns"
		for _, ip := range svc.ClusterIPs {
			isDNS = isDNS || dnsIP != "" && ip == dnsIP
		}
		if !isDNS {
			continue
		}
		out := map[string]bool{}
		for _, p := range svc.Ports {
			if p.Port == 53 {
				out[map[string]string{"TCP": "6", "UDP": "17"}[strings.ToUpper(p.Protocol)]] = true
			}
		}
		delete(out, "")
		if len(out) > 0 {
			return out, svc.Namespace + "/" + svc.Name
		}
	}
	return nil, ""
}

func checkVFPDNSRules(s *snapshot.Snapshot) ([]Issue, error) {
	protos, svcName := dnsProtocols(s)
	if protos == nil {
		return nil, nil
	}
	byID := endpointsByID(s)
	var issues []Issue
	for _, p := range s.VFPPorts {
		e := byID.Get(p.EndpointID)
		if e == nil || e.IsRemote {
			continue
		}
		group := lbDSRGroups(p)[true]
		if group == nil {
			continue
		}
		var missing []string
		for _, proto := range []string{"6", "17"} {
			if !protos[proto] {
				continue
			}
			found := false
			for _, r := range group.Rules {
				found = found || strings.Contains(r.ID, "53_53_"+proto) || strings.Contains(r.FriendlyName, "53_53_"+proto)
			}
			if !found {
				missing = append(missing, map[string]string{"6": "TCP", "17": "UDP"}[proto]+" 53")
			}
		}
		if len(missing) == 0 {
			continue
		}
		file := vfpPortFile(p)
		issues = append(issues, Issue{
			Summary: fmt.Sprintf("VFP port %s of endpoint %s (%s) has kube-proxy's load balancer rules but none for DNS (%s of %s): name lookups from this pod fail",
				p.Name, e.ID, addrOrNone(e.IP), strings.Join(missing, ", "), svcName),
			Evidence: []finding.Evidence{{File: file, Object: "VFP port " + p.Name, Field: "layer LB_DSR group LB_DSR_IPv4_OUT",
				Value:    fmt.Sprintf("%d rules, none for %s", len(group.Rules), strings.Join(missing, ", ")),
				Expected: "rules ..._53_53_6 and ..._53_53_17 (networkhealth.ps1 CheckVfpDnsRuleMissing)"}},
			Subjects: []string{"endpoint:" + e.ID},
		})
	}
	return issues, nil
}
