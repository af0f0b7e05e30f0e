package analyzers

import (
	"fmt"

	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/snapshot"
)

// minFreePortBlocks is networkhealth's threshold: HNS takes ports for load
// balancers and SNAT in blocks of 64 from the dynamic range.
const minFreePortBlocks = 10

func init() {
	register(&Rule{
		ID: "SVC-09", Title: "Dynamic port range exhausted by excluded ranges", Severity: finding.Fail,
		Needs: []snapshot.Input{snapshot.InputPortRanges},
		Checks: fmt.Sprintf("For TCP and UDP, the 64-port blocks of the dynamic port range that no excluded port range touches (as networkhealth's CountAvailableEphemeralPorts counts them); "+
			"%d or fewer is a failure.", minFreePortBlocks),
		Why: "HNS reserves ports for load balancers and outbound NAT in blocks of 64 from the dynamic range. When other services' reservations or a small range leave too few, " +
			"kube-proxy's policies fail with 'The specified port already exists' and SNAT fails under load.",
		Fix: "Enlarge the dynamic range (netsh int ipv4 set dynamicport tcp start=49152 num=16384, the same for udp) and remove the reservations that collide (netsh int ipv4 delete excludedportrange).",
		Sources: []string{"microsoft/SDN networkhealth.ps1 PortExhaustionTest", "https://github.com/microsoft/hcsshim/issues/1043",
			"https://github.com/projectcalico/calico/issues/6324", "https://github.com/kubernetes/website/pull/17930"},
		WindowsOnly: true,
		Check:       checkPortRanges,
		Upstream: []string{
			"microsoft/SDN Kubernetes/windows/debug/networkmonitor/networkhealth.ps1 PortExhaustionTest, CountAvailableEphemeralPorts (64-port blocks, 10 or fewer fails)",
			"Windows HNS (reserves load balancer and SNAT ports from the dynamic range in blocks of 64)",
		},
		Guards: []string{
			"a protocol whose dynamic range is not shown is not judged; skipped when neither is",
			guardLinux,
		},
	})
}

func checkPortRanges(s *snapshot.Snapshot) ([]Issue, error) {
	pr := s.PortRanges
	var issues []Issue
	known := 0
	for _, proto := range []string{"tcp", "udp"} {
		free, total, ok := pr.FreeBlocks(proto)
		if !ok {
			continue
		}
		known++
		if free > minFreePortBlocks {
			continue
		}
		d := pr.Dynamic[proto]
		issues = append(issues, Issue{
			Summary: fmt.Sprintf("only %d free 64-port blocks of %d remain in the %s dynamic port range %d-%d (%d excluded ranges): HNS cannot reserve ports for load balancers and SNAT",
				free, total, proto, d.Start, d.Start+d.Count-1, len(pr.Excluded[proto])),
			Evidence: []finding.Evidence{{File: pr.Source, Object: proto + " dynamic port range", Field: "free 64-port blocks", Value: fmt.Sprint(free), Expected: fmt.Sprintf("more than %d", minFreePortBlocks)}},
		})
	}
	if known == 0 {
		return nil, Skip("%s has no dynamic port range", pr.Source)
	}
	return issues, nil
}
