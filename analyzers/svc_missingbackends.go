package analyzers

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/snapshot"
)

func init() {
	register(&Rule{
		ID: "SVC-10", Title: "Load balancer misses ready endpoints of its Service", Severity: finding.Warn,
		Needs: []snapshot.Input{snapshot.InputHNSLoadBalancers, snapshot.InputHNSEndpoints, snapshot.InputKubeServices, snapshot.InputEndpointSlices},
		Checks: "With the Services and their EndpointSlices in the bundle, every ClusterIP load balancer has each ready endpoint of its Service, of the VIP's address family, " +
			"among its backends (the other direction of SVC-06's stale backends). Services with internalTrafficPolicy Local, topology hints or no ready endpoint, and " +
			"load balancers whose backend list the input hid or that name endpoints the bundle does not have, are not judged; this node's own addresses " +
			"(hostNetwork pods here, which kube-proxy leaves out by design) are not expected.",
		Why: "kube-proxy gives each ClusterIP load balancer every ready endpoint. Where HNS supports ModifyLoadbalancer (HNS 15.4, Windows Server 2025), kube-proxy " +
			"updates a load balancer in place instead of deleting and recreating it, and updates have been seen to leave backends out: the pods behind them get no " +
			"traffic from this node, and a Service whose only ready pods are left out fails from here while it works from other nodes.",
		Fix: "Restart kube-proxy (it deletes and recreates its load balancers); if it comes back, check the Windows Server 2025 cumulative updates for HNS load " +
			"balancer fixes. A pod that became ready in the seconds before the bundle was collected also shows here: collect again to confirm.",
		Sources: []string{"kubernetes pkg/proxy/winkernel/hns.go updateLoadBalancer (hcn UpdateLoadBalancer, used when hcn.ModifyLoadbalancerSupported)",
			"microsoft/hcsshim hcn/hcnglobals.go ModifyLoadbalancerVersion (HNS 15.4)"},
		Check: checkMissingBackends,
		Upstream: []string{
			"kubernetes pkg/proxy/winkernel/proxier.go syncProxyRules (every ready endpoint, of the Service's family, is a backend of each ClusterIP load balancer; terminating ones only when none is ready)",
			"kubernetes pkg/proxy/winkernel/hns.go updateLoadBalancer (hcn UpdateLoadBalancer in place of delete and create, when hcsshim says ModifyLoadbalancer is supported)",
			"microsoft/hcsshim hcn/hcnglobals.go ModifyLoadbalancerVersion (HNS 15.4 and later), read from hns/v2/features.json first",
		},
		Guards: []string{
			"only with the Services and their EndpointSlices in the bundle",
			"Services with internalTrafficPolicy Local, topology hints or no ready endpoint are not judged",
			"a load balancer whose backend list the input hid, or that names an endpoint the bundle does not have, is not judged",
			"only addresses of the VIP's family are expected (an IPv4 VIP never lists IPv6 pods)",
			"this node's own addresses are not expected: kube-proxy leaves out a local endpoint without an HNS endpoint (hostNetwork pods here)",
			"warn, not fail: a pod that became ready seconds before collection can be missing for one sync period",
		},
	})
}

// checkMissingBackends compares, per ClusterIP load balancer, the desired
// backends (the Service's ready endpoints) with the actual ones.
func checkMissingBackends(s *snapshot.Snapshot) ([]Issue, error) {
	byID := endpointsByID(s)
	modify := s.Feature(snapshot.FeatureModifyLoadbalancer)
	own := ownAddresses(s, s.CNINetwork())
	var issues []Issue
	for _, sl := range serviceLoadBalancers(s) {
		v, err := netip.ParseAddr(sl.vip)
		if err != nil {
			continue
		}
		if missing, ok := missingFrom(sl.lb, v.Is4(), sl.ready, byID, own); ok && len(missing) > 0 {
			issues = append(issues, missingIssue(s, sl.svc, sl.vip, sl.lb, missing, len(sl.ready), modify))
		}
	}
	return issues, nil
}

// missingFrom: the ready addresses of the VIP's family that are no backend
// of lb, sorted; false when lb's backends cannot all be told.
func missingFrom(lb *snapshot.LoadBalancer, v4 bool, ready map[netip.Addr]bool, byID *snapshot.EndpointIndex, own nodeAddrs) ([]string, bool) {
	if !lb.Knows("HostComputeEndpoints") {
		return nil, false
	}
	have := make(map[netip.Addr]bool, lb.EndpointIDs.Len())
	for _, i := range byID.Backends(lb.EndpointIDs) {
		if i < 0 || !byID.At(i).IP.IsValid() {
			return nil, false
		}
		have[byID.At(i).IP] = true
	}
	var missing []string
	for a := range ready {
		// This node's own addresses are hostNetwork pods here: kube-proxy
		// skips a local endpoint without an HNS endpoint by design.
		if a.Is4() == v4 && !have[a] && !own.has(a) {
			missing = append(missing, a.String())
		}
	}
	slices.Sort(missing)
	return missing, true
}

func missingIssue(s *snapshot.Snapshot, svc *snapshot.Service, vip string, lb *snapshot.LoadBalancer, missing []string, ready int, modify snapshot.FeatureState) Issue {
	summary := fmt.Sprintf("%s for Service %s/%s lacks %d of the Service's %d ready endpoint(s) (%s): they get no traffic from this node",
		lbObject(lb), svc.Namespace, svc.Name, len(missing), ready, strings.Join(firstN(missing, 5), ", "))
	ev := []finding.Evidence{
		{File: lb.Ref.File, Object: lbObject(lb), Field: "backends", Value: fmt.Sprint(lb.EndpointIDs.Len()), Expected: "every ready endpoint: " + strings.Join(firstN(missing, 5), ", ") + " missing"},
		{File: s.Inputs[snapshot.InputEndpointSlices], Object: "EndpointSlices of " + svc.Namespace + "/" + svc.Name, Field: "ready addresses", Value: fmt.Sprint(ready)},
	}
	if modify.Known && modify.Supported {
		summary += "; HNS here updates load balancers in place (ModifyLoadbalancer), where such updates have dropped backends"
		ev = append(ev, finding.Evidence{File: modify.File, Field: "ModifyLoadbalancer supported", Value: "true (" + modify.Source + ")"})
	}
	return Issue{Summary: summary, Evidence: ev, Subjects: []string{"service:" + svc.Namespace + "/" + svc.Name, "vip:" + vip}}
}
