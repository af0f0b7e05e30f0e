package analyzers

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/snapshot"
)

func init() {
	register(&Rule{
		ID: "EP-02", Title: "Running pods without an HNS endpoint", Severity: finding.Fail,
		Needs: []snapshot.Input{snapshot.InputKubePods, snapshot.InputHNSEndpoints},
		Checks: "Every Running pod of this node that is not hostNetwork, not being deleted, started more than 5 minutes before the collection " +
			"(HNS is read first, the pods later), and has a pod IP other than the node's own has a local HNS endpoint with that IP (either family). " +
			"An empty pod list on a node with local endpoints is skipped, not judged (the collector asked for another node name).",
		Why: "The CNI creates a pod's HNS endpoint once, when the sandbox starts. When HNS loses it (HNS restarted or crashed and purged its " +
			"state, a network recreated under a new ID, someone ran Remove-HnsEndpoint or a cleanup script), the pod keeps running with no " +
			"network at all: nothing recreates the endpoint until the pod is recreated.",
		Fix: "Recreate the pods (kubectl delete pod; their controllers start new ones with new endpoints). If many are gone, look for the " +
			"HNS restart in events/hns.json and the CNI and kube-proxy logs (LOG-01), and restart kube-proxy so that it reprograms its load balancers.",
		Sources: []string{"kubernetes.io Networking on Windows (HNS restart purges container endpoints)",
			"containernetworking plugins win-overlay/win-bridge and microsoft/windows-container-networking sdnoverlay: the endpoint is created in CNI ADD only",
			"https://github.com/Azure/aks-engine/issues/853"},
		Check: checkPodEndpoints,
		Upstream: []string{
			"microsoft/windows-container-networking cni (sdnoverlay, sdnbridge) and containernetworking plugins win-overlay/win-bridge: the HNS endpoint is created in CNI ADD and deleted in DEL, nowhere else",
			"kubernetes.io Networking on Windows: HNS restart or a recreated network loses container endpoints",
			"kubernetes pkg/kubelet: status.podIPs of a Running pod are what the CNI returned at sandbox creation",
		},
		Guards: []string{
			"only Running pods that are not hostNetwork, not being deleted, started more than 5 minutes before the collection, and whose pod IP is not the node's own",
			"an empty pod list on a node with local endpoints is skipped: the collector asked the API server for another node name",
			"an endpoint with either of the pod's addresses (IPv4 or IPv6) counts",
			"only with this node's Pods in the bundle (k8s/pods.json)",
		},
	})
	register(&Rule{
		ID: "EP-03", Title: "hostPort without its PortMapping policy", Severity: finding.Fail,
		Needs: []snapshot.Input{snapshot.InputKubePods, snapshot.InputHNSEndpoints},
		Checks: "Every hostPort of a Running pod of this node has a PortMapping policy on the pod's HNS endpoint with that external port, " +
			"container port and protocol. Pods without an endpoint are EP-02's.",
		Why: "On Windows the CNI implements hostPort (the portMappings capability) as a PortMapping policy on the pod's endpoint: without it " +
			"the port is not open on the node, and what connects to node:hostPort is refused, while the pod looks healthy.",
		Fix: "Check that the CNI configuration declares the capability (\"capabilities\": {\"portMappings\": true}) and that the runtime passes it " +
			"(containerd's CNI config); recreate the pod. Note that a hostPort another pod or process already holds is not published either.",
		Sources: []string{"microsoft/windows-container-networking cni: portMappings capability → PortMapping endpoint policy",
			"kubernetes.io Networking on Windows (hostPort support with containerd)"},
		Check: checkHostPorts,
		Upstream: []string{
			"microsoft/windows-container-networking cni: runtimeConfig portMappings (capability portMappings) become PortMapping endpoint policies (InternalPort, ExternalPort, Protocol)",
			"HNS V1 endpoint policy NAT = V2 PortMapping (policy aliases)",
		},
		Guards: []string{
			"only Running pods with an HNS endpoint (pods without one are EP-02's)",
			"an endpoint whose policies the input hid is not judged",
			"a PortMapping without InternalPort or Protocol matches any",
		},
	})
}

// localEndpointsByIP indexes the local endpoints by every address.
func localEndpointsByIP(s *snapshot.Snapshot) map[netip.Addr]*snapshot.Endpoint {
	out := map[netip.Addr]*snapshot.Endpoint{}
	for _, e := range s.Endpoints {
		if e.IsRemote {
			continue
		}
		for _, a := range []netip.Addr{e.IP, e.IPv6} {
			if a.IsValid() {
				out[a] = e
			}
		}
	}
	return out
}

// podNeedsEndpoint: a pod whose networking is an HNS endpoint.
func podNeedsEndpoint(s *snapshot.Snapshot, p *snapshot.Pod) bool {
	if !strings.EqualFold(p.Phase, "Running") || p.HostNetwork || p.Deleting || len(p.PodIPs) == 0 {
		return false
	}
	if node, err := netip.ParseAddr(s.Facts.NodeIP.Value); err == nil && p.PodIPs[0] == node {
		return false // host-network in all but name (older API servers)
	}
	return true
}

// settleTime: a pod that started this close to the collection may have
// got its endpoint after HNS was read (HNS first, the pods minutes later).
const settleTime = 5 * time.Minute

func checkPodEndpoints(s *snapshot.Snapshot) ([]Issue, error) {
	byIP := localEndpointsByIP(s)
	if len(s.Pods) == 0 {
		for _, e := range s.Endpoints {
			if !e.IsRemote {
				return nil, Skip("%s lists no pod of this node although it has local endpoints: the node name the collector asked for is not the Node's", snapshot.FileKubePods)
			}
		}
	}
	at := collectedAt(s)
	var missing []string
	var ev []finding.Evidence
	pods := 0
	for _, p := range s.Pods {
		if !podNeedsEndpoint(s, p) {
			continue
		}
		if !at.IsZero() && !p.StartTime.IsZero() && p.StartTime.After(at.Add(-settleTime)) {
			continue // started around the collection: HNS may have been read before
		}
		pods++
		found := false
		for _, a := range p.PodIPs {
			found = found || byIP[a] != nil
		}
		if found {
			continue
		}
		missing = append(missing, fmt.Sprintf("%s/%s (%s)", p.Namespace, p.Name, p.PodIPs[0]))
		if len(ev) < 20 {
			ev = append(ev, finding.Evidence{File: snapshot.FileKubePods, Object: "Pod " + p.Namespace + "/" + p.Name, Field: "status.podIP",
				Value: p.PodIPs[0].String(), Expected: "a local HNS endpoint with this address"})
		}
	}
	if len(missing) == 0 {
		return nil, nil
	}
	why := ""
	if len(missing) == pods && pods > 1 {
		why = ": every one of them, as after HNS restarted and purged its state"
	}
	return []Issue{{
		Summary:  fmt.Sprintf("%d of %d running pod(s) have no HNS endpoint and so no network%s: %s", len(missing), pods, why, strings.Join(firstN(missing, 5), ", ")),
		Evidence: ev,
	}}, nil
}

func checkHostPorts(s *snapshot.Snapshot) ([]Issue, error) {
	byIP := localEndpointsByIP(s)
	var issues []Issue
	for _, p := range s.Pods {
		if !podNeedsEndpoint(s, p) || len(p.HostPorts) == 0 {
			continue
		}
		var e *snapshot.Endpoint
		for _, a := range p.PodIPs {
			if e == nil {
				e = byIP[a]
			}
		}
		if e == nil || !e.Knows("Policies") {
			continue
		}
		for _, hp := range p.HostPorts {
			if hasPortMapping(e, hp) {
				continue
			}
			issues = append(issues, Issue{
				Summary: fmt.Sprintf("Pod %s/%s publishes hostPort %s/%d (container port %d) but its endpoint %s has no PortMapping for it: node:%d is not open",
					p.Namespace, p.Name, hp.Protocol, hp.HostPort, hp.ContainerPort, e.ID, hp.HostPort),
				Evidence: []finding.Evidence{
					{File: snapshot.FileKubePods, Object: "Pod " + p.Namespace + "/" + p.Name, Field: "ports[].hostPort", Value: hp.Protocol + "/" + strconv.FormatInt(hp.HostPort, 10)},
					{File: epFile(e), Object: "endpoint " + e.ID, Field: "Policies", Value: "no PortMapping " + strconv.FormatInt(hp.HostPort, 10), Expected: "PortMapping ExternalPort " + strconv.FormatInt(hp.HostPort, 10)},
				},
				Subjects: []string{"pod:" + p.Namespace + "/" + p.Name},
			})
		}
	}
	return issues, nil
}

// hasPortMapping: a PortMapping policy (V1 NAT, V2 PortMapping) for the
// host port, with the container port and protocol when it says them.
func hasPortMapping(e *snapshot.Endpoint, hp snapshot.HostPort) bool {
	for _, pol := range e.Policies {
		if pol.Kind() != "PortMapping" {
			continue
		}
		ext, _ := pol.Num("ExternalPort")
		in, _ := pol.Num("InternalPort")
		proto := pol.Str("Protocol")
		if ext != hp.HostPort || in != 0 && hp.ContainerPort != 0 && in != hp.ContainerPort {
			continue
		}
		if proto == "" || strings.EqualFold(proto, hp.Protocol) || proto == map[string]string{"TCP": "6", "UDP": "17"}[hp.Protocol] {
			return true
		}
	}
	return false
}
