package analyzers

import (
	"fmt"
	"sort"
	"strings"

	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/snapshot"
)

// aclWarnThreshold is the number of ACL policies on one endpoint above
// which Felix's reprogramming becomes heavy (the catalog's threshold).
const aclWarnThreshold = 1000

func init() {
	register(&Rule{
		ID: "CAL-01", Title: "Calico IPAM incompatible with Windows nodes", Severity: finding.Fail,
		Needs: []snapshot.Input{snapshot.InputCalicoIPAM, snapshot.InputKubeNodes},
		Checks: "In a cluster with Windows nodes, Calico's default IPAMConfig has strictAffinity true; no address of a block affine to a Windows node went to a pod on " +
			"another node (borrowing); a Windows node has one affine block (a warning otherwise) and its block keeps room beyond the 4 addresses Calico reserves on Windows " +
			"(a warning when full). A Windows bundle checks its own node's blocks, a Linux bundle every Windows node's.",
		Why: "Windows cannot borrow addresses from another node's block: with strictAffinity false, Linux nodes hand out addresses from a Windows node's block and traffic " +
			"to those pods is routed to the wrong node. kube-proxy on Windows supports one block per node, and a full block leaves new Windows pods Pending.",
		Fix: "calicoctl ipam configure --strictaffinity=true (before Windows nodes join; then release the borrowed addresses by recreating those pods); " +
			"choose a block size that fits a Windows node's pods (blockSize of the IPPool).",
		Sources: []string{"https://docs.tigera.io/calico/latest/getting-started/kubernetes/windows-calico/limitations", "https://github.com/projectcalico/calico/issues/4404",
			"https://github.com/projectcalico/calicoctl/pull/2119", "https://github.com/projectcalico/calico/issues/5762"},
		OnlyFor: cniCalico,
		Check:   checkCalicoIPAM,
		Upstream: []string{
			"Calico libcalico-go/lib/ipam/ipam.go (IPAMConfig strictAffinity: with false, hosts borrow addresses from blocks affine to other hosts)",
			"Calico node/pkg/lifecycle/startup/startup_windows.go ensureNetworkForOS (one block per Windows node, HostReservedAttr StartOfBlock 3 + EndOfBlock 1 reserved)",
			"Calico cni-plugin/pkg/dataplane/windows/dataplane_windows.go (the HNS network's subnet is the node's block)",
		},
		Guards: []string{
			"only in a cluster with Windows nodes; " + guardCalico,
			"a Windows bundle judges only its own node's blocks, a Linux bundle every Windows node's",
			"the 4 addresses Calico reserves in a Windows block are not counted as free",
			"a full block and several blocks per node are warnings, not failures",
		},
	})
	register(&Rule{
		ID: "CAL-02", Title: "Calico policy so large that reprogramming resets connections", Severity: finding.Warn,
		Needs: []snapshot.Input{snapshot.InputHNSEndpoints},
		Checks: fmt.Sprintf("On a Calico node, no local endpoint carries more than %d ACL policies. (Correlating TCP reset bursts with Felix updates needs a capture and Felix logs.)",
			aclWarnThreshold),
		Why: "Felix rewrites an endpoint's HNS ACL policies whenever a policy or a selector's member set changes, and HNS resets the endpoint's established TCP connections when it does; " +
			"with thousands of rules (source and destination selectors expand to one rule per address pair) this happens often and costs CPU.",
		Fix:     "Reduce what the policies expand to: fewer source+destination selector pairs, CIDRs or named sets instead of per-pod selectors, fewer policies selecting Windows pods.",
		Sources: []string{"https://docs.tigera.io/calico/latest/getting-started/kubernetes/windows-calico/limitations", "https://github.com/microsoft/Windows-Containers/issues/608"},
		OnlyFor: cniCalico,
		Check:   checkCalicoACLs,
		Upstream: []string{
			"Calico felix/dataplane/windows/endpoint_mgr.go (rewrites a local endpoint's ACL policies on every policy, profile or IP set update)",
			"Calico felix/dataplane/windows/policysets/policysets.go (selectors expanded to one ACL rule per address)",
		},
		Guards: []string{
			guardCalico,
			"remote endpoints are not counted; only policies of type ACL are",
			"a warning: a reset burst needs a capture and Felix logs to prove",
		},
	})
}

func checkCalicoACLs(s *snapshot.Snapshot) ([]Issue, error) {
	type heavy struct {
		e *snapshot.Endpoint
		n int
	}
	var list []heavy
	for _, e := range s.Endpoints {
		if e.IsRemote {
			continue
		}
		n := 0
		for _, p := range e.Policies {
			if strings.EqualFold(p.Type, "ACL") {
				n++
			}
		}
		if n > aclWarnThreshold {
			list = append(list, heavy{e, n})
		}
	}
	sort.Slice(list, func(i, j int) bool { return list[i].n > list[j].n })
	var issues []Issue
	for _, h := range list {
		issues = append(issues, Issue{
			Summary: fmt.Sprintf("endpoint %s (%s) carries %d ACL policies: each policy or selector change makes Felix reprogram them and HNS reset the pod's TCP connections",
				h.e.Name, addrOrNone(h.e.IP), h.n),
			Evidence: []finding.Evidence{{File: h.e.Refs[len(h.e.Refs)-1].File, Object: "endpoint " + h.e.ID, Field: "Policies[Type=ACL]", Value: fmt.Sprint(h.n), Expected: fmt.Sprintf("at most %d", aclWarnThreshold)}},
			Subjects: []string{"address:" + addrOrNone(h.e.IP)},
		})
	}
	return issues, nil
}

// calicoReservedOnWindows is how many addresses of each Windows block Calico
// keeps for itself (network, gateway, broadcast and one more).
const calicoReservedOnWindows = 4

func checkCalicoIPAM(s *snapshot.Snapshot) ([]Issue, error) {
	ipam := s.CalicoIPAM
	windows := map[string]bool{}
	for _, k := range s.KubeNodes {
		if k.IsWindows() {
			windows[k.Name] = true
		}
	}
	if len(windows) == 0 {
		return nil, nil
	}
	var issues []Issue
	if ipam.StrictAffinity == nil || !*ipam.StrictAffinity {
		ev := finding.Evidence{File: ipam.ConfigFile, Object: "IPAMConfig default", Field: "spec.strictAffinity", Value: "false", Expected: "true"}
		if ipam.StrictAffinity == nil {
			ev.File, ev.Value = snapshot.FileCalicoIPAMConfigs, "no IPAMConfig (the default, false)"
		}
		issues = append(issues, Issue{
			Summary:  fmt.Sprintf("Calico IPAM strictAffinity is false in a cluster with %d Windows nodes: other nodes may take addresses from a Windows node's block, and traffic to those pods goes to the Windows node", len(windows)),
			Evidence: []finding.Evidence{ev},
		})
	}
	// Which Windows nodes this bundle speaks for.
	mine := windows
	if self := s.SelfKubeNode(); self != nil && self.IsWindows() {
		mine = map[string]bool{self.Name: true}
	}
	perNode := map[string][]*snapshot.CalicoBlock{}
	for _, b := range ipam.Blocks {
		if mine[b.Node] {
			perNode[b.Node] = append(perNode[b.Node], b)
		}
	}
	nodes := make([]string, 0, len(perNode))
	for n := range perNode {
		nodes = append(nodes, n)
	}
	sort.Strings(nodes)
	for _, node := range nodes {
		blocks := perNode[node]
		for _, b := range blocks {
			var borrowers []string
			for other, n := range b.PodNodes {
				if other != node {
					borrowers = append(borrowers, fmt.Sprintf("%s (%d)", other, n))
				}
			}
			sort.Strings(borrowers)
			if len(borrowers) > 0 {
				issues = append(issues, Issue{
					Summary: fmt.Sprintf("block %s is affine to Windows node %s, but pods on %s have addresses from it: traffic to them is routed to %s",
						b.CIDR, node, strings.Join(borrowers, ", "), node),
					Evidence: []finding.Evidence{{File: snapshot.FileCalicoIPAMBlocks, Object: "IPAMBlock " + b.CIDR.String(), Field: "spec.attributes[].secondary.node",
						Value: strings.Join(borrowers, ", "), Expected: "only " + node}},
					Subjects: []string{"subnet:" + b.CIDR.String()},
				})
			}
			if free := b.Size() - calicoReservedOnWindows - b.Allocated; len(blocks) == 1 && free <= 0 {
				issues = append(issues, Issue{Severity: finding.Warn,
					Summary: fmt.Sprintf("block %s of Windows node %s is full (%d of %d addresses allocated, %d reserved by Calico on Windows): new pods there stay Pending",
						b.CIDR, node, b.Allocated, b.Size(), calicoReservedOnWindows),
					Evidence: []finding.Evidence{{File: snapshot.FileCalicoIPAMBlocks, Object: "IPAMBlock " + b.CIDR.String(), Field: "allocations", Value: fmt.Sprint(b.Allocated),
						Expected: fmt.Sprintf("fewer than %d", b.Size()-calicoReservedOnWindows)}},
					Subjects: []string{"subnet:" + b.CIDR.String()},
				})
			}
		}
		if len(blocks) > 1 {
			var cidrs []string
			for _, b := range blocks {
				cidrs = append(cidrs, b.CIDR.String())
			}
			issues = append(issues, Issue{Severity: finding.Warn,
				Summary: fmt.Sprintf("Windows node %s has %d Calico blocks (%s): kube-proxy and the Windows dataplane use one, so pods from the others are not reachable",
					node, len(blocks), strings.Join(cidrs, ", ")),
				Evidence: []finding.Evidence{{File: snapshot.FileCalicoIPAMBlocks, Object: "IPAMBlocks affine to " + node, Field: "count", Value: fmt.Sprint(len(blocks)), Expected: "1"}},
			})
		}
	}
	return issues, nil
}
