package analyzers

import (
	"fmt"
	"slices"
	"strings"

	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/snapshot"
)

// Windows builds the version rules compare against.
const (
	buildWS2019 = 17763 // Windows Server 2019 / 1809
	buildWS2022 = 20348
	// ubrWS2019Overlay is 17763.316 (KB4482887, March 2019), the first
	// update with the HNS overlay and RemoteSubnet support kube-proxy and
	// flannel need; KB4489899 (17763.379) carries it to the monthly CU.
	ubrWS2019Overlay = 316
	// WS2022 builds 20348.2322 up to KB5044281 (20348.2762) break
	// container networking with Calico and kube-proxy.
	ubrWS2022BadFrom  = 2322
	ubrWS2022BadUntil = 2762
)

func init() {
	register(&Rule{
		ID: "VER-01", WindowsOnly: true, Title: "OS build too old for overlay networking", Severity: finding.Fail,
		Needs:   []snapshot.Input{snapshot.InputOS, snapshot.InputHNSNetworks},
		Checks:  "A node with an Overlay network runs build 17763 (Windows Server 2019) or later, and on 17763 at least update 17763.316 (KB4482887; KB4489899 or any later cumulative update), unless the hotfix list names one of them.",
		Why:     "Older builds lack the HNS RemoteSubnet and overlay load balancer support: kube-proxy fails with \"An expected policy was not found\" and flannel with a RemoteSubnetSupported error.",
		Fix:     "Install the latest cumulative update for the OS (Windows Update or the Microsoft Update Catalog) and reboot.",
		Sources: []string{"https://github.com/microsoft/SDN/issues/273", "kubernetes.io Networking on Windows (KB4489899 on Windows Server 2019)", "https://github.com/rancher/rancher/issues/20511"},
		Check:   checkOverlayBuild,
		Upstream: []string{
			"microsoft/hcsshim hcn/hcnglobals.go RemoteSubnetVersion (HNS 9.2 and later)",
			"flannel pkg/backend/vxlan/vxlan_windows.go (hcn.RemoteSubnetSupported before creating the network)",
			"kubernetes pkg/proxy/winkernel/proxier.go NewProxier (overlay requires RemoteSubnetSupported)",
		},
		Guards: []string{
			"skipped without an Overlay network, or when the build is unknown",
			"build 17763 with an unknown update revision is not judged",
			"a hotfix list naming KB4482887 or KB4489899 passes",
			guardLinux,
		},
	})
	register(&Rule{
		ID: "VER-02", WindowsOnly: true, Title: "Known-bad OS update for container networking", Severity: finding.Fail,
		Needs:   []snapshot.Input{snapshot.InputOS},
		Checks:  "The build is not Windows Server 2022 20348.2322 up to (not including) 20348.2762 (KB5044281), the updates that broke container networking with Calico and kube-proxy.",
		Why:     "On those builds endpoint and load balancer programming fails (\"General failure\", access denied) and pods lose service and outbound connectivity after the update.",
		Fix:     "Install KB5044281 (20348.2762) or a later cumulative update and reboot.",
		Sources: []string{"https://github.com/microsoft/Windows-Containers/issues/516", "https://github.com/projectcalico/calico/issues/9019", "https://github.com/projectcalico/calico/issues/8529"},
		Check:   checkKnownBadBuild,
		Upstream: []string{
			"Windows Server 2022 cumulative updates 20348.2322 to 20348.2761 (HNS regression; microsoft/Windows-Containers#516, fixed by KB5044281)",
		},
		Guards: []string{
			"skipped when the build or update revision is unknown",
			"a hotfix list naming KB5044281 passes",
			guardLinux,
		},
	})
}

func osEvidence(s *snapshot.Snapshot, expected string) finding.Evidence {
	o := s.OS
	return finding.Evidence{File: s.Inputs[snapshot.InputOS], Field: "CurrentBuild.UBR", Value: fmt.Sprintf("%d.%d (%s)", o.Build, o.UBR, strings.TrimSpace(o.ProductName)), Expected: expected}
}

func hasHotfix(o *snapshot.OSInfo, kbs ...string) bool {
	return slices.ContainsFunc(o.Hotfixes, func(h string) bool {
		return slices.ContainsFunc(kbs, func(kb string) bool { return strings.EqualFold(strings.TrimSpace(h), kb) })
	})
}

func checkOverlayBuild(s *snapshot.Snapshot) ([]Issue, error) {
	if len(overlayNetworks(s)) == 0 {
		return nil, Skip("no Overlay network on this node")
	}
	o := s.OS
	if o.Build == 0 {
		return nil, Skip("the OS build number is not in %s", s.Inputs[snapshot.InputOS])
	}
	switch {
	case o.Build < buildWS2019:
		return []Issue{{Summary: fmt.Sprintf("build %d is older than Windows Server 2019 (17763): overlay networking for Kubernetes is not supported", o.Build),
			Evidence: []finding.Evidence{osEvidence(s, "17763.316 or later")}}}, nil
	case o.Build == buildWS2019 && o.UBR > 0 && o.UBR < ubrWS2019Overlay && !hasHotfix(o, "KB4482887", "KB4489899"):
		return []Issue{{Summary: fmt.Sprintf("Windows Server 2019 at update 17763.%d lacks KB4482887/KB4489899: HNS cannot program the overlay RemoteSubnet and load balancer policies", o.UBR),
			Evidence: []finding.Evidence{osEvidence(s, "17763.316 or later")}}}, nil
	}
	return nil, nil
}

func checkKnownBadBuild(s *snapshot.Snapshot) ([]Issue, error) {
	o := s.OS
	if o.Build == 0 || (o.Build == buildWS2022 && o.UBR == 0) {
		return nil, Skip("the OS build and update revision are not in %s", s.Inputs[snapshot.InputOS])
	}
	if o.Build == buildWS2022 && o.UBR >= ubrWS2022BadFrom && o.UBR < ubrWS2022BadUntil && !hasHotfix(o, "KB5044281") {
		return []Issue{{Summary: fmt.Sprintf("Windows Server 2022 update 20348.%d is in the range (20348.%d–20348.%d) whose HNS breaks container networking with Calico and kube-proxy; KB5044281 (20348.%d) fixes it",
			o.UBR, ubrWS2022BadFrom, ubrWS2022BadUntil-1, ubrWS2022BadUntil), Evidence: []finding.Evidence{osEvidence(s, "20348.2762 (KB5044281) or later")}}}, nil
	}
	return nil, nil
}
