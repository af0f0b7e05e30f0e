package analyzers

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/snapshot"
)

// Backend limits of a VFP load balancer rule: older builds refuse more
// than 64 destinations without DSR; 1024 per Service is the documented cap.
const (
	maxBackendsNonDSR = 64
	maxBackends       = 1024
	lbFlagDSR         = 1
)

func init() {
	register(&Rule{
		ID: "SVC-04", Title: "Too many backends for one load balancer", Severity: finding.Fail,
		Needs:  []snapshot.Input{snapshot.InputHNSLoadBalancers},
		Checks: "No load balancer has more than 1024 backends, and none without DSR has more than 64.",
		Why:    "VFP cannot program more destinations than that: kube-proxy fails with \"Unable to initialize VFP LB rule: invalid number of destinations\" and the Service stops working on the node, typically when a Deployment scales past 64 pods.",
		Fix:    "Enable DSR (kube-proxy --enable-dsr=true with the WinDSR feature gate), or split the Service; stay under 1024 backends per Service.",
		Sources: []string{"https://github.com/kubernetes/kubernetes/issues/98680", "https://github.com/microsoft/Windows-Containers/issues/93",
			"kubernetes.io Networking on Windows (more than 1024 backend pods)"},
		Check: checkBackendCount,
		Upstream: []string{
			"Windows VFP load balancer (destination limits: 64 without DSR on older builds, 1024 per Service; kubernetes.io Networking on Windows)",
			"kubernetes pkg/proxy/winkernel/hns.go getLoadBalancer (one HNS load balancer holds every backend)",
		},
		Guards: []string{
			"the 64-backend limit applies only to load balancers without DSR, and only when their Flags are shown",
			guardLinux,
		},
	})
	register(&Rule{
		ID: "SVC-05", Title: "DSR enabled in kube-proxy but not on its load balancers", Severity: finding.Fail,
		Needs:  []snapshot.Input{snapshot.InputHNSLoadBalancers, snapshot.InputKubeProxy},
		Checks: "When kube-proxy runs with --enable-dsr=true, its ClusterIP load balancers have the DSR flag (the check of networkhealth.ps1's ClusterIPServiceDSR). kube-proxy sets the flag from --enable-dsr on ClusterIP load balancers only; NodePort, externalIP and ingress load balancers are DSR only for externalTrafficPolicy Local, so they are not judged.",
		Why:    "Without DSR the replies of every ClusterIP connection come back through the load balancer's NAT: client source IPs are lost and externalTrafficPolicy: Local Services do not work. Where HNS has no DSR (before 9.3 / 10.2) kube-proxy cannot program it at all, whatever the flag says; where it has, non-DSR load balancers are left over from a kube-proxy started without it.",
		Fix:    "Check that the OS build supports DSR (WS2019 with recent updates or later), that the WinDSR feature gate is on, then restart kube-proxy and read its log for DSR errors.",
		Sources: []string{"microsoft/SDN networkhealth.ps1 ClusterIPServiceDSR", "kubernetes.io Networking on Windows (DSR)", "https://github.com/kubernetes/kubernetes/pull/93080",
			"kubernetes pkg/proxy/winkernel/proxier.go (syncProxyRules: loadBalancerFlags isDSR per load balancer type)"},
		Check: checkDSR,
		Upstream: []string{
			"kubernetes pkg/proxy/winkernel/proxier.go syncProxyRules (isDSR from --enable-dsr on ClusterIP load balancers; others DSR only for externalTrafficPolicy Local)",
			"microsoft/hcsshim hcn/hcnglobals.go DSRVersion (HNS 9.3 to 9.x, or 10.2 and later), hcn/hcnsupport.go GetSupportedFeatures: what the node's hcsshim says (hns/v2/features.json) is read first, the version through this table only for bundles without it",
			"microsoft/SDN Kubernetes/windows/debug/networkmonitor/networkhealth.ps1 ClusterIPServiceDSR",
		},
		Guards: []string{
			"only when kube-proxy runs with --enable-dsr=true",
			"only ClusterIP load balancers (VIP in the service CIDR); nothing is judged without the service CIDR",
			"load balancers whose Flags the input hid are not judged",
			guardLinux,
		},
	})
	register(&Rule{
		ID: "SVC-06", Title: "Stale or duplicate load balancers and remote endpoints", Severity: finding.Fail,
		Needs: []snapshot.Input{snapshot.InputHNSLoadBalancers, snapshot.InputHNSEndpoints},
		Checks: "No two load balancers share frontend VIP, protocol and port (fail); every load balancer has port mappings (fail); no address has both a local and a remote endpoint (fail); " +
			"with the Services and their EndpointSlices in the bundle, no ClusterIP load balancer sends to an address that is not a ready endpoint of its Service (fail; Services with " +
			"internalTrafficPolicy Local, topology hints or no ready endpoint are not judged); every remote endpoint is a backend of some load balancer (warn). Excepted are the " +
			"source VIP, Calico's <network>_ep and VTEP/node-address endpoints, and the remote endpoint kube-proxy creates on overlay for each Service ClusterIP (address = the " +
			"ClusterIP, MAC = the host's, ProviderAddress = the node IP), recognised by an address that is a load balancer VIP, a Service ClusterIP or in the service CIDR, " +
			"or (service CIDR unknown) by the host's MAC with this node's address as ProviderAddress. With the Services in the bundle, such an endpoint whose address " +
			"no Service has is a left-over of a deleted Service (warn); without them, one in the service CIDR is not judged (a Service without ready endpoints has its VIP endpoint but no load balancer).",
		Why: "Duplicate load balancers hang HNS or send traffic to old backends; a remote endpoint left on a pod's address makes creating that pod fail or steals its traffic; stale remote endpoints accumulate after pod churn " +
			"(kube-proxy deletes a remote endpoint only when its reference count drops, and never a Service VIP endpoint that existed before it started).",
		Fix: "Restart kube-proxy (it removes and recreates its load balancers and remote endpoints); remove single stale endpoints with Get-HnsEndpoint | ? IPAddress -eq <ip> | Remove-HnsEndpoint; upgrade kube-proxy if it recurs.",
		Sources: []string{"microsoft/SDN networkhealth.ps1 StaleRemoteEndpoints", "https://github.com/microsoft/Windows-Containers/issues/631",
			"https://github.com/kubernetes/kubernetes/issues/130963", "https://github.com/kubernetes/kubernetes/issues/131466",
			"kubernetes pkg/proxy/winkernel/proxier.go (syncProxyRules: service VIP remote endpoint, source VIP endpoint; endpointInfo.Cleanup)",
			"kubernetes pkg/proxy/winkernel/hns.go (createEndpoint: RemoteEndpoint flag, ProviderAddress policy)"},
		Check: checkStaleLoadBalancers,
		Upstream: []string{
			"kubernetes pkg/proxy/winkernel/proxier.go syncProxyRules (remote endpoint per Service ClusterIP on overlay: ClusterIP, host MAC, node IP as ProviderAddress; the source VIP endpoint; endpointInfo.Cleanup by reference count)",
			"kubernetes pkg/proxy/winkernel/hns.go createEndpoint (RemoteEndpoint flag, ProviderAddress policy)",
			"microsoft/SDN Kubernetes/windows/debug/networkmonitor/networkhealth.ps1 StaleRemoteEndpoints",
		},
		Guards: []string{
			"load balancers are duplicates only when VIP, protocol and external port all match: one per Service port on a VIP is normal, and VIP-less (NodePort) ones are not compared",
			"no port mappings is judged only when the input shows PortMappings",
			"the ClusterIP remote endpoints kube-proxy creates on overlay are not stale: address a load balancer VIP, a Service ClusterIP or in the service CIDR",
			"without the service CIDR such an endpoint is one outside the pod networks with the host's MAC (any MAC but kube-proxy's conjured 02-11 when adapters are missing) and this node's address as ProviderAddress (any, when that is unsure)",
			"with Services, such an endpoint whose address no Service has is a left-over of a deleted Service (warn); without them, one in the service CIDR is not judged",
			"the source VIP, <network>_ep endpoints, endpoints whose address is their own ProviderAddress and node or Calico tunnel addresses are not stale",
			"stale remote endpoints are a warning; no load balancer at all is SVC-03's",
			"stale backends only with Services and EndpointSlices; internalTrafficPolicy Local, topology-hinted and endpoint-less Services are not judged",
			guardLinux,
		},
	})
}

func lbObject(lb *snapshot.LoadBalancer) string {
	return "load balancer " + lb.ID + " (" + strings.Join(lb.FrontendVIPs, ", ") + ")"
}

func checkBackendCount(s *snapshot.Snapshot) ([]Issue, error) {
	var issues []Issue
	for _, lb := range s.LoadBalancers {
		n := lb.EndpointIDs.Len()
		dsr := lb.Flags&lbFlagDSR != 0
		switch {
		case n > maxBackends:
			issues = append(issues, Issue{Summary: fmt.Sprintf("%s has %d backends, more than the %d a Service may have on Windows", lbObject(lb), n, maxBackends),
				Evidence: []finding.Evidence{{File: lb.Ref.File, Object: lbObject(lb), Field: "backends", Value: strconv.Itoa(n), Expected: "at most 1024"}}})
		case n > maxBackendsNonDSR && !dsr && lb.Knows("Flags"):
			issues = append(issues, Issue{Summary: fmt.Sprintf("%s has %d backends without DSR: VFP refuses more than %d destinations on many builds", lbObject(lb), n, maxBackendsNonDSR),
				Evidence: []finding.Evidence{{File: lb.Ref.File, Object: lbObject(lb), Field: "backends", Value: strconv.Itoa(n), Expected: "at most 64 without DSR"},
					{File: lb.Ref.File, Object: lbObject(lb), Field: "Flags", Value: strconv.FormatInt(lb.Flags, 10), Expected: "1 (DSR)"}}})
		}
	}
	return issues, nil
}

func checkDSR(s *snapshot.Snapshot) ([]Issue, error) {
	if !s.KubeProxy.EnableDSR {
		return nil, nil
	}
	service := s.Facts.ServiceCIDR.Prefix()
	var off []string
	var ev []finding.Evidence
	for _, lb := range s.LoadBalancers {
		if lb.Flags&lbFlagDSR != 0 || !lb.Knows("Flags") {
			continue
		}
		clusterIP := service.IsValid() && slices.ContainsFunc(lb.FrontendVIPs, func(v string) bool { return containsAddr(service, v) })
		if !clusterIP {
			continue
		}
		off = append(off, strings.Join(lb.FrontendVIPs, ","))
		if len(ev) < 20 {
			ev = append(ev, finding.Evidence{File: lb.Ref.File, Object: lbObject(lb), Field: "Flags", Value: strconv.FormatInt(lb.Flags, 10), Expected: "DSR bit (1) set"})
		}
	}
	if len(off) == 0 {
		return nil, nil
	}
	ev = append([]finding.Evidence{{File: s.KubeProxy.Source, Field: "--enable-dsr", Value: "true"}}, ev...)
	why := ""
	if f := s.Feature(snapshot.FeatureDSR); f.Known && !f.Supported {
		// kube-proxy asks hcsshim (hcn.DSRSupported); without it no load
		// balancer of this node can be DSR, whatever the flag says. The
		// node's own answer (features.json) comes first, the version and
		// hcsshim's table only for bundles without it.
		ver := ""
		if v := s.HNSVersion; v != nil {
			ver = " " + v.String()
		}
		why = fmt.Sprintf(": HNS%s has no DSR, says %s (DSR needs 9.3 or later 9.x, or 10.2 and later)", ver, f.Source)
		ev = append(ev, finding.Evidence{File: f.File, Field: "DSR supported", Value: "false (" + f.Source + ")", Expected: "true: HNS 9.3+ or 10.2+"})
	}
	return []Issue{{Summary: fmt.Sprintf("kube-proxy asks for DSR but %d ClusterIP load balancer(s) are not DSR%s: %s", len(off), why, strings.Join(firstN(off, 5), "; ")), Evidence: ev}}, nil
}

func checkStaleLoadBalancers(s *snapshot.Snapshot) ([]Issue, error) {
	var issues []Issue
	type frontend struct {
		vip        string
		proto, ext int64
	}
	// Maps sized up front and keyed by addresses, not their strings: a
	// large cluster's node has hundreds of thousands of references.
	seen := make(map[frontend]*snapshot.LoadBalancer, len(s.LoadBalancers))
	for _, lb := range s.LoadBalancers {
		if len(lb.PortMappings) == 0 && lb.Knows("PortMappings") {
			issues = append(issues, Issue{Summary: fmt.Sprintf("%s has no port mappings: kube-proxy versions before the fix panic on it", lbObject(lb)),
				Evidence: []finding.Evidence{{File: lb.Ref.File, Object: lbObject(lb), Field: "PortMappings", Value: "none"}}})
		}
		for _, vip := range lb.FrontendVIPs {
			for _, pm := range lb.PortMappings {
				k := frontend{vip, pm.Protocol, pm.ExternalPort}
				first, dup := seen[k]
				if !dup {
					seen[k] = lb
					continue
				}
				if first == lb {
					continue
				}
				issues = append(issues, Issue{Summary: fmt.Sprintf("two load balancers serve %s %s/%d: %s and %s", vip, protoName(pm.Protocol), pm.ExternalPort, first.ID, lb.ID),
					Evidence: []finding.Evidence{{File: first.Ref.File, Object: lbObject(first), Field: "PortMappings", Value: fmt.Sprintf("%s/%d", protoName(pm.Protocol), pm.ExternalPort)},
						{File: lb.Ref.File, Object: lbObject(lb), Field: "PortMappings", Value: fmt.Sprintf("%s/%d", protoName(pm.Protocol), pm.ExternalPort), Expected: "one load balancer per frontend"}},
					Subjects: []string{"address:" + vip}})
			}
		}
	}
	// The local endpoints are a few of a large cluster's node's: the map
	// is sized for them, not for every endpoint.
	nLocal := 0
	for _, e := range s.Endpoints {
		if !e.IsRemote && e.IP.IsValid() {
			nLocal++
		}
	}
	local := make(map[netip.Addr]*snapshot.Endpoint, nLocal)
	for _, e := range s.Endpoints {
		if !e.IsRemote && e.IP.IsValid() {
			local[e.IP] = e
		}
	}
	// Which endpoint IDs some load balancer lists, marked by the position
	// of the (last) endpoint of that ID: an ID no endpoint has is never
	// asked about below.
	byID := endpointsByID(s)
	backend := make([]bool, len(s.Endpoints))
	for _, lb := range s.LoadBalancers {
		for _, i := range byID.Backends(lb.EndpointIDs) {
			if i >= 0 {
				backend[i] = true
			}
		}
	}
	if len(s.LoadBalancers) == 0 {
		return issues, nil // SVC-03 reports a node without load balancers
	}
	vip := s.Facts.SourceVIP.Addr()
	vteps := vtepAddresses(s)
	svcVIPs := serviceVIPEndpoints(s)
	var stale, deletedSvc []string
	var staleEv []finding.Evidence
	for _, e := range s.Endpoints {
		if !e.IsRemote || !e.IP.IsValid() {
			continue
		}
		if l := local[e.IP]; l != nil {
			issues = append(issues, Issue{Summary: fmt.Sprintf("%s has both a local endpoint (%s) and a remote one (%s): pod creation on that address fails or its traffic goes to the remote node", e.IP, l.ID, e.ID),
				Evidence: []finding.Evidence{{File: epFile(l), Object: "endpoint " + l.ID, Field: "IPAddress", Value: e.IP.String(), Note: "local"},
					{File: epFile(e), Object: "endpoint " + e.ID, Field: "IPAddress", Value: e.IP.String(), Note: "remote, PA " + addrOrNone(e.ProviderAddress)}},
				Subjects: []string{"address:" + e.IP.String()}})
			continue
		}
		if backend[byID.Pos(e.ID)] || e.IP == vip || strings.HasSuffix(strings.ToLower(e.Name), "_ep") || e.IP == e.ProviderAddress || vteps[e.IP] {
			continue
		}
		switch svcVIPs.classify(e) {
		case vipLive, vipUnjudged:
			continue // kube-proxy's remote endpoint for a Service ClusterIP
		case vipDeleted:
			deletedSvc = append(deletedSvc, e.IP.String())
			if len(staleEv) < 20 {
				staleEv = append(staleEv, finding.Evidence{File: epFile(e), Object: "endpoint " + e.ID, Field: "IPAddress", Value: e.IP.String(),
					Expected: "the ClusterIP of a Service in " + s.Inputs[snapshot.InputKubeServices], Note: svcVIPs.why(e)})
			}
			continue
		}
		stale = append(stale, e.IP.String())
		if len(staleEv) < 20 {
			staleEv = append(staleEv, finding.Evidence{File: epFile(e), Object: "endpoint " + e.ID, Field: "IPAddress", Value: e.IP.String(), Expected: "a backend of some load balancer or a Service ClusterIP"})
		}
	}
	if len(stale)+len(deletedSvc) > 0 {
		var parts []string
		if len(stale) > 0 {
			parts = append(parts, fmt.Sprintf("%d remote endpoint(s) are no load balancer's backend and no Service's ClusterIP: left over from deleted pods (%s)", len(stale), strings.Join(firstN(stale, 5), ", ")))
		}
		if len(deletedSvc) > 0 {
			parts = append(parts, fmt.Sprintf("%d Service VIP endpoint(s) kube-proxy made for ClusterIPs that no Service has any more: left over from deleted Services (%s)", len(deletedSvc), strings.Join(firstN(deletedSvc, 5), ", ")))
		}
		issues = append(issues, Issue{Severity: finding.Warn, Summary: strings.Join(parts, "; "), Evidence: staleEv})
	}
	return append(issues, staleBackends(s)...), nil
}

// staleBackends compares each ClusterIP load balancer's backends with the
// ready endpoints of its Service (EndpointSlices): an address kube-proxy
// no longer has is a load balancer HNS did not update (Windows Server 2025
// ModifyLoadBalancer) or kube-proxy did not resync.
func staleBackends(s *snapshot.Snapshot) []Issue {
	if !s.Has(snapshot.InputEndpointSlices) || !s.Has(snapshot.InputKubeServices) {
		return nil
	}
	byID := endpointsByID(s)
	var issues []Issue
	for _, sl := range serviceLoadBalancers(s) {
		svc, ip, lb, ready := sl.svc, sl.vip, sl.lb, sl.ready
		var gone []string
		for _, i := range byID.Backends(lb.EndpointIDs) {
			if i < 0 {
				continue
			}
			if e := byID.At(i); e.IP.IsValid() && !ready[e.IP] {
				gone = append(gone, e.IP.String())
			}
		}
		if len(gone) == 0 {
			continue
		}
		issues = append(issues, Issue{
			Summary: fmt.Sprintf("%s for Service %s/%s still sends to %d address(es) that are not ready endpoints of the Service (%s): traffic to them fails",
				lbObject(lb), svc.Namespace, svc.Name, len(gone), strings.Join(firstN(gone, 5), ", ")),
			Evidence: []finding.Evidence{
				{File: lb.Ref.File, Object: lbObject(lb), Field: "backends", Value: strings.Join(firstN(gone, 5), ", "), Expected: "the Service's ready endpoints"},
				{File: snapshot.FileEndpointSlices, Object: "EndpointSlices of " + svc.Namespace + "/" + svc.Name, Field: "ready addresses", Value: fmt.Sprint(len(ready))},
			},
			Subjects: []string{"service:" + svc.Namespace + "/" + svc.Name, "vip:" + ip},
		})
	}
	return issues
}

// serviceLB is a ClusterIP load balancer of a Service with the Service's
// ready endpoints: what kube-proxy should have given it.
type serviceLB struct {
	svc   *snapshot.Service
	vip   string
	lb    *snapshot.LoadBalancer
	ready map[netip.Addr]bool
}

// serviceLoadBalancers pairs each Service's ClusterIPs with their load
// balancers, for the Services whose backends can be judged: not
// internalTrafficPolicy Local, no topology hints, some ready endpoint.
func serviceLoadBalancers(s *snapshot.Snapshot) []serviceLB {
	byVIP := loadBalancersByVIP(s)
	var out []serviceLB
	for _, svc := range s.Services {
		if strings.EqualFold(svc.InternalTrafficPolicy, "Local") {
			continue
		}
		slices := s.SlicesOf(svc.Namespace, svc.Name)
		if ready, hinted := snapshot.ReadyAddresses(slices); len(ready) == 0 || hinted {
			continue
		}
		for _, ip := range svc.ClusterIPs {
			for _, lb := range byVIP[ip] {
				// The endpoints of the slices that serve this load
				// balancer's target port: with named ports, a pod without
				// one is in a slice without it, and rightly not a backend.
				port := ""
				if len(lb.PortMappings) > 0 {
					port = protoName(lb.PortMappings[0].Protocol) + "/" + strconv.FormatInt(lb.PortMappings[0].InternalPort, 10)
				}
				ready, _ := snapshot.ReadyAddressesFor(slices, port)
				if len(ready) > 0 {
					out = append(out, serviceLB{svc, ip, lb, ready})
				}
			}
		}
	}
	return out
}

// vtepAddresses are the nodes' own addresses that remote endpoints exist
// for without being service backends (HNS host-to-host traffic, Calico's
// tunnel addresses); an endpoint whose IP is its own PA is one as well.
func vtepAddresses(s *snapshot.Snapshot) map[netip.Addr]bool {
	out := map[netip.Addr]bool{}
	for _, k := range s.KubeNodes {
		for _, a := range k.InternalIPs {
			out[a] = true
		}
		if t := k.CalicoVXLANTunnelAddr(); t.IsValid() {
			out[t] = true
		}
	}
	return out
}

func protoName(p int64) string {
	switch p {
	case 6:
		return "TCP"
	case 17:
		return "UDP"
	case 132:
		return "SCTP"
	}
	return strconv.FormatInt(p, 10)
}

// containsAddr: a textual address inside a prefix.
func containsAddr(p netip.Prefix, addr string) bool {
	a, err := netip.ParseAddr(strings.TrimSpace(addr))
	return err == nil && p.Contains(a)
}
