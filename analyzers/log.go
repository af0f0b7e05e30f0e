package analyzers

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/snapshot"
)

func init() {
	register(&Rule{
		ID: "LOG-01", Title: "kube-proxy, the CNI or the overlay agent fails in its own log", Severity: finding.Fail,
		Needs: []snapshot.Input{snapshot.InputLogs},
		Checks: "The logs in the bundle (logs/kube-proxy, logs/cni, logs/flannel, logs/calico, and HNS's Admin and Operational event channels in events/hns.json: " +
			"its Error events; logs/kubelet and logs/containerd for the first two only) hold none of: HNS rejecting a policy (0x803b000d; in kube-proxy's log its load balancers' rejection is \"Policy creation failed\" below); a Go panic (in the kubelet's and containerd's logs only one that ends the process, not a handler's their servers recover from); an Unauthorized answer from the API server; " +
			"hcsshim's \"Network name/ID ... not found\" (the CNI asked for an HNS network that is gone); HNS's \"Element not found\" and " +
			"\"The object already exists\"; kube-proxy's \"Unable to find HNS Network specified\" and \"The HNS network ... is not present or has changed\" and \"Policy creation failed\" / \"Remote endpoint creation failed\"; " +
			"and kube-proxy did not start three times or more within an hour (\"Version info\" at each start, by klog's times). " +
			"Each is reported with its count, the log and the line of its last occurrence; it fails when that is among the last 50 lines (still happening), " +
			"or for the HNS event channels within the hour before collection, and warns when it is older. hcsshim's network-not-found counts in the CNI's " +
			"logs only: kube-proxy retries it every second after a reboot until the overlay agent creates the network.",
		Why: "These are the failures the components state themselves, which the HNS state shows only indirectly: an expired or rotated token leaves " +
			"kube-proxy and flannel working from stale state; a kube-proxy in a crash loop deletes and recreates every load balancer at each start; a CNI " +
			"whose network is gone (HNS restarted, the network recreated under a new ID) fails every pod sandbox on the node.",
		Fix: "Unauthorized: renew the component's kubeconfig or service account token and restart it. Panic or restarts: read the lines before the last " +
			"start; upgrade kube-proxy if it is a known crash. Policies rejected (0x803b000d): correct the policy HNS refuses (an ExceptionList " +
			"entry written as a network address such as 172.17.0.0/16; ACL addresses that are addresses), then recreate the pods. Network not found: check that the CNI configuration names the HNS network that exists " +
			"(Get-HnsNetwork) and restart the overlay agent (flanneld, calico-node) so that it recreates the network, then the pods.",
		Sources: []string{"kubernetes cmd/kube-proxy/app/server.go Run (\"Version info\" logged at every start)",
			"kubernetes client-go tools/cache/reflector.go (\"Failed to watch\"/\"failed to list\" with the API server's Unauthorized)",
			"microsoft/hcsshim hcn/hcnerrors.go NetworkNotFoundError", "https://github.com/Azure/aks-engine/issues/853",
			"https://github.com/kubernetes/kubernetes/issues/72696", "kubernetes pkg/proxy/winkernel/proxier.go syncProxyRules (Unable to find HNS Network specified by ...; Policy creation failed)",
			"https://github.com/projectcalico/calico/issues/8465 (hcnCreateEndpoint: 0x803b000d)"},
		Check: checkLogs,
		Upstream: []string{
			"kubernetes cmd/kube-proxy/app/server.go ProxyServer.Run: klog \"Version info\" first at every start",
			"kubernetes client-go tools/cache/reflector.go: list and watch errors carry the API server's status text (Unauthorized for 401)",
			"microsoft/hcsshim hcn/hcnerrors.go NetworkNotFoundError: Network name \"...\" not found / Network ID \"...\" not found, returned by GetNetworkByName/ByID to the CNI",
		},
		Guards: []string{
			"only the component logs of the bundle (logs/), never pasted text",
			"each kind once per log, with its count and last line: old occurrences warn, only those in the last 50 lines fail",
			"kube-proxy restarts only from three starts within the log, and never fail on their own",
			"a line over 64 KiB is judged by its start; a log over the part limit is scanned up to it, with a note",
		},
	})
}

// recentLines: an event this close to the end of its log is still happening.
const recentLines = 50

var logKinds = []struct {
	kind, what string
	min        int // occurrences before it is reported
}{
	{snapshot.LogUnauthorized, "the API server refuses its credentials (Unauthorized): it works from stale state", 1},
	{snapshot.LogPanic, "it crashed (Go panic)", 1},
	{snapshot.LogNetworkNotFound, "the HNS network it asks for is gone (hcsshim: network not found): pod sandboxes fail", 1},
	{snapshot.LogHNSNotFound, "HNS answers Element not found: an object it refers to was removed (an HNS restart, a recreated network)", 1},
	{snapshot.LogHNSExists, "HNS answers The object already exists: a left-over endpoint or policy is in the way", 1},
	{snapshot.LogProxyNoNetwork, "its HNS network is gone or was recreated under a new ID (HNS restarted, the overlay agent recreated it, or --network-name / KUBE_NETWORK names another) and it removes all its load balancers", 1},
	{snapshot.LogProxyPolicy, "it fails to create load balancers or remote endpoints: those Services do not work from this node", 1},
	{snapshot.LogHNSEventError, "HNS logged errors in its own event channels (events/hns.json)", 1},
	{snapshot.LogPolicyRejected, "HNS rejects a policy it is given (0x803b000d, the provided policy configuration is invalid or missing parameters): " +
		"from the CNI, the kubelet or containerd, every pod sandbox with that configuration fails; from Felix, those NetworkPolicy ACLs are not applied. " +
		"Known causes: an OutBoundNAT ExceptionList entry with host bits set on Windows Server 2022 and later (NAT-02), an ACL whose addresses are not addresses (\"Any\")", 1},
	{snapshot.LogStart, "kube-proxy started", loopStarts},
}

// Starts within this many minutes make a crash loop, not restarts for
// reboots months apart.
const (
	loopStarts  = 3
	loopMinutes = 60
	// An event this close before the collection is still happening.
	recentEvent = time.Hour
)

func checkLogs(s *snapshot.Snapshot) ([]Issue, error) {
	at := collectedAt(s)
	var issues []Issue
	for _, lf := range s.Logs {
		for _, k := range logKinds {
			ev := lf.Events[k.kind]
			if ev == nil || ev.Count < k.min {
				continue
			}
			sev := finding.Warn
			when := "earlier in the log"
			switch {
			case !ev.LastTime.IsZero():
				// Event channels say when: judge by the clock, not by
				// the position (two channels are listed one after the other).
				when = "at " + ev.LastTime.UTC().Format(time.RFC3339)
				if !at.IsZero() && at.Sub(ev.LastTime) < recentEvent {
					sev, when = finding.Fail, when+", within the hour before collection"
				}
			case lf.Lines-ev.LastLine < recentLines:
				sev, when = finding.Fail, "still at the end of the log"
			}
			summary := fmt.Sprintf("%s: %s; %d time(s) in %s, last at line %d (%s)", lf.Component, k.what, ev.Count, lf.File, ev.LastLine, when)
			if k.kind == snapshot.LogStart {
				n, span := densestStarts(ev.Minutes)
				if n < loopStarts {
					continue // restarts for reboots and upgrades, not a loop
				}
				sev = finding.Warn
				summary = fmt.Sprintf("kube-proxy started %d times within %d minutes in %s: it restarts in a loop, and each start deletes and recreates its load balancers; last start at line %d",
					n, span, lf.File, ev.LastLine)
			}
			issues = append(issues, Issue{
				Severity: sev,
				Summary:  summary,
				Evidence: []finding.Evidence{{File: lf.File, Field: "line " + strconv.Itoa(ev.LastLine), Value: ev.LastText}},
				Subjects: []string{"log:" + lf.File},
			})
		}
	}
	return issues, nil
}

func init() {
	register(&Rule{
		ID: "LOG-02", Title: "kube-proxy, the CNI or the overlay agent restarts in a loop", Severity: finding.Fail,
		Needs: []snapshot.Input{snapshot.InputKubePods},
		Checks: "On this node, no container of the networking pods (kube-proxy, flannel, Calico, Antrea, the CNI daemon sets: matched by pod name) " +
			"is waiting in CrashLoopBackOff (fail), or has restarted 5 times or more and last terminated within the hour before collection (warn), as " +
			"the pod status says. restartCount grows over the pod's life (each reboot adds one), so older restarts are not judged.",
		Why: "kube-proxy deletes and recreates every load balancer when it starts, flanneld and calico-node recreate routes and may recreate " +
			"the HNS network: while they restart in a loop, Services and pod-to-pod traffic on the node come and go.",
		Fix: "kubectl logs --previous on the pod names the reason; LOG-01 shows what the logs in the bundle say (Unauthorized, network not found, panics).",
		Sources: []string{"kubernetes core/v1 ContainerStatus (restartCount, state.waiting.reason CrashLoopBackOff, lastState.terminated)",
			"kubernetes.io Debug Running Pods (CrashLoopBackOff)"},
		Check: checkNetworkingPodRestarts,
		Upstream: []string{
			"kubernetes core/v1 ContainerStatus: restartCount, state.waiting.reason (CrashLoopBackOff), lastState.terminated (reason, exitCode)",
			"the pod names of the kube-proxy, flannel, Calico and Antrea Windows daemon sets (sig-windows-tools hostprocess manifests, calico-windows, antrea-windows)",
		},
		Guards: []string{
			"only this node's pods whose names start like the networking daemon sets' (kube-proxy, kube-flannel, calico-node, antrea-agent...)",
			"restarts warn from 5 and only when the last termination was within the hour before collection (restartCount also counts reboots); CrashLoopBackOff of any container fails",
			"only with this node's Pods in the bundle (k8s/pods.json)",
		},
	})
}

// networkingPods are the pods whose restarts break the node's networking,
// by the names their manifests give them.
var networkingPods = []string{"kube-proxy", "kube-flannel", "flannel", "calico-node", "calico-windows", "antrea-agent", "cilium", "azure-cns", "azure-ip-masq"}

// Restarts from which a pod is restarting, not recovering.
const manyRestarts = 5

func checkNetworkingPodRestarts(s *snapshot.Snapshot) ([]Issue, error) {
	at := collectedAt(s)
	var issues []Issue
	for _, p := range s.Pods {
		name := strings.ToLower(p.Name)
		if !slices.ContainsFunc(networkingPods, func(n string) bool { return strings.HasPrefix(name, n) }) {
			continue
		}
		loop := p.CrashLooping != ""
		recent := !p.LastExitAt.IsZero() && !at.IsZero() && at.Sub(p.LastExitAt) < recentEvent
		if !loop && (p.Restarts < manyRestarts || !recent) {
			continue
		}
		sev, state := finding.Warn, ", the last time within the hour before collection"
		if loop {
			sev, state = finding.Fail, ", now container "+p.CrashLooping+" waits in CrashLoopBackOff"
		}
		ev := []finding.Evidence{{File: snapshot.FileKubePods, Object: "Pod " + p.Namespace + "/" + p.Name, Field: "containerStatuses[" + p.RestartedName + "].restartCount", Value: strconv.FormatInt(p.Restarts, 10)}}
		if p.LastExit != "" {
			ev = append(ev, finding.Evidence{File: snapshot.FileKubePods, Object: "Pod " + p.Namespace + "/" + p.Name, Field: "lastState.terminated", Value: p.LastExit})
		}
		issues = append(issues, Issue{
			Severity: sev,
			Summary:  fmt.Sprintf("%s/%s (container %s) restarted %d times%s", p.Namespace, p.Name, p.RestartedName, p.Restarts, state),
			Evidence: ev,
			Subjects: []string{"pod:" + p.Namespace + "/" + p.Name},
		})
	}
	return issues, nil
}

// densestStarts is the most starts within loopMinutes of each other, and
// the minutes they span.
func densestStarts(minutes []int) (int, int) {
	best, span := 0, 0
	for i := range minutes {
		j := i
		for j+1 < len(minutes) && minutes[j+1]-minutes[i] <= loopMinutes && minutes[j+1] >= minutes[i] {
			j++
		}
		if n := j - i + 1; n > best {
			best, span = n, minutes[j]-minutes[i]
		}
	}
	return best, span
}
