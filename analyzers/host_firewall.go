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
		ID: "HOST-08", Title: "Windows Firewall blocks inbound VXLAN (UDP 4789)", Severity: finding.Fail,
		Needs: []snapshot.Input{snapshot.InputHNSNetworks, snapshot.InputFirewall},
		Checks: "On a node with an overlay network, every enabled firewall profile that applies to the overlay adapter (its network category when known, else every profile) " +
			"has an enabled inbound Allow rule for UDP on the VXLAN port, for all programs, and no enabled inbound Block rule for it (a block rule wins). " +
			"Profiles whose default inbound action is Allow, disabled profiles, and nodes without an overlay network are not checked.",
		Why: "Windows drops the peers' VXLAN packets before the vSwitch sees them: pods reach pods on their own node only, and captures on the peers show " +
			"SYNs leaving with no answer. Calico's installer creates the rule; other installers, and hardened images, may not.",
		Fix: "Allow it: New-NetFirewallRule -Name OverlayTraffic4789UDP -DisplayName 'Overlay Traffic 4789 UDP' -Direction Inbound -Protocol UDP -LocalPort 4789 -Action Allow " +
			"(and remove or narrow any block rule); open UDP 4789 between nodes in the cloud security groups too.",
		Sources: []string{"https://github.com/rancher/rke2/issues/6307", "https://github.com/projectcalico/calico/issues/10536",
			"https://github.com/knabben/blog/blob/5fe9f9e022043b39d32e3599428cadb367fc6aa6/content/2021/0903/_index.md"},
		Check: checkFirewallVXLAN,
		Upstream: []string{
			"Calico node/windows-packaging/CalicoWindows/node/node-service.ps1 (creates the OverlayTraffic4789UDP inbound rule with the External network)",
			"Windows Firewall (a matching block rule wins over allow rules)",
		},
		Guards: []string{
			"only nodes with an Overlay network",
			"disabled profiles and profiles whose default inbound action is Allow are not checked",
			"profiles are those of the overlay adapter's network category when known, else all",
			"the network's VxlanPort is used when set",
			"disabled, outbound and other-port rules are ignored",
			guardLinux,
		},
	})
}

func checkFirewallVXLAN(s *snapshot.Snapshot) ([]Issue, error) {
	fw := s.Firewall
	var issues []Issue
	for _, n := range s.Networks {
		if n.Type != snapshot.TypeOverlay {
			continue
		}
		port := 4789
		if n.VxlanPort > 0 {
			port = n.VxlanPort
		}
		profiles, adapter := overlayProfiles(s, n)
		blocked, blockOrder, unallowed := judgeProfiles(fw, profiles, func(r *snapshot.FirewallRule) bool { return r.CoversUDPPort(port) })
		where := func(names []string) string { return profileWhere(names, adapter) }
		for _, block := range blockOrder {
			issues = append(issues, Issue{
				Summary: fmt.Sprintf("firewall rule %s blocks inbound UDP %d in %s: overlay network %s receives no VXLAN from its peers", ruleName(*block), port, where(blocked[block]), n.Name),
				Evidence: []finding.Evidence{{File: fw.Source, Object: "firewall rule " + block.Name, Field: "Action", Value: block.Action + " inbound UDP " + strings.Join(block.LocalPorts, ","),
					Expected: fmt.Sprintf("no block rule for UDP %d", port)}},
				Subjects:    []string{"network:" + n.Name},
				Remediation: fmt.Sprintf("A block rule wins over any allow rule: remove rule %s or exclude UDP %d from it (Set-NetFirewallPortFilter), then check that an allow rule such as OverlayTraffic4789UDP exists.", block.Name, port),
			})
		}
		if len(unallowed) > 0 {
			issues = append(issues, Issue{
				Summary: fmt.Sprintf("the Windows Firewall is on in %s and no inbound rule allows UDP %d: overlay network %s receives no VXLAN from its peers", where(unallowed), port, n.Name),
				Evidence: []finding.Evidence{{File: fw.Source, Object: "firewall profiles " + strings.Join(unallowed, ", "), Field: fmt.Sprintf("inbound rules for UDP %d", port),
					Value: fmt.Sprintf("none of %d collected rules allows it", len(fw.Rules)), Expected: "an enabled Allow rule, e.g. OverlayTraffic4789UDP"}},
				Subjects: []string{"network:" + n.Name},
			})
		}
	}
	return issues, nil
}

// judgeProfiles finds, in every enabled profile of profiles whose default
// inbound action is not Allow, the first enabled inbound Block rule that
// covers what covers says (a block rule wins), else whether an Allow rule
// does: the profiles each block rule hits (in order of the rules), and
// the profiles nothing allows.
func judgeProfiles(fw *snapshot.HostFirewall, profiles map[string]bool, covers func(*snapshot.FirewallRule) bool) (map[*snapshot.FirewallRule][]string, []*snapshot.FirewallRule, []string) {
	blocked := map[*snapshot.FirewallRule][]string{}
	var blockOrder []*snapshot.FirewallRule
	var unallowed []string
	for _, p := range fw.Profiles {
		if !p.Enabled || !profiles[strings.ToLower(p.Name)] || strings.EqualFold(p.DefaultInboundAction, "Allow") {
			continue
		}
		var allow, block *snapshot.FirewallRule
		for i := range fw.Rules {
			r := &fw.Rules[i]
			if !r.Enabled || !strings.EqualFold(r.Direction, "Inbound") || !r.AppliesTo(p.Name) || !covers(r) {
				continue
			}
			switch {
			case strings.EqualFold(r.Action, "Block") && !r.AllPeers():
				// A block for some peers only: whether they are the ones
				// that matter is not in the bundle; not a block for all.
			case strings.EqualFold(r.Action, "Block") && block == nil:
				block = r
			case strings.EqualFold(r.Action, "Allow") && allow == nil:
				allow = r
			}
		}
		switch {
		case block != nil:
			if _, seen := blocked[block]; !seen {
				blockOrder = append(blockOrder, block)
			}
			blocked[block] = append(blocked[block], p.Name)
		case allow == nil:
			unallowed = append(unallowed, p.Name)
		}
	}
	return blocked, blockOrder, unallowed
}

// profileWhere names profiles for a summary, with the adapter whose
// network they are when it is known.
func profileWhere(names []string, adapter string) string {
	w := "the " + strings.Join(names, ", ") + " profile"
	if len(names) > 1 {
		w += "s"
	}
	if adapter != "" {
		w += " (the network of " + adapter + ")"
	}
	return w
}

// profilesOf are the firewall profiles of the adapter holding addr: its
// connection category when the bundle has it, else every profile.
func profilesOf(s *snapshot.Snapshot, addr netip.Addr) (map[string]bool, string) {
	out := map[string]bool{}
	if addr.IsValid() {
		if ad := s.AdapterWithAddr(addr); ad != nil {
			for _, c := range s.Firewall.Networks {
				if strings.EqualFold(c.InterfaceAlias, ad.Name) && c.Category != "" {
					out[strings.ToLower(snapshot.ProfileFor(c.Category))] = true
					return out, ad.Name
				}
			}
		}
	}
	for _, p := range s.Firewall.Profiles {
		out[strings.ToLower(p.Name)] = true
	}
	return out, ""
}

// overlayProfiles are the firewall profiles that apply to the network's
// adapter: its connection category when the bundle has it, else all.
func overlayProfiles(s *snapshot.Snapshot, n *snapshot.Network) (map[string]bool, string) {
	return profilesOf(s, n.ManagementIP)
}

func ruleName(r snapshot.FirewallRule) string {
	if r.DisplayName != "" && r.DisplayName != r.Name {
		return fmt.Sprintf("'%s' (%s)", r.DisplayName, r.Name)
	}
	return "'" + r.Name + "'"
}
