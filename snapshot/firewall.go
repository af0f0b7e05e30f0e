package snapshot

import (
	"strconv"
	"strings"
)

// HostFirewall is host/firewall.json: the Windows Firewall profiles, the
// rules that concern the VXLAN ports, and which profile each interface's
// network is in. diag's collector writes it from Get-NetFirewallProfile,
// Get-NetFirewallPortFilter/Get-NetFirewallRule and Get-NetConnectionProfile.
type HostFirewall struct {
	Source string `json:"source,omitempty"`
	// Collected lists the protocol/port pairs whose rules the collector
	// gathered ("TCP:10250"); empty for bundles from before it said so,
	// which gathered the VXLAN ports' UDP rules only.
	Collected []string             `json:"collected,omitempty"`
	Profiles  []FirewallProfile    `json:"profiles,omitempty"`
	Rules     []FirewallRule       `json:"rules,omitempty"`
	Networks  []ConnectionCategory `json:"networks,omitempty"`
}

// FirewallProfile is one of Domain, Private and Public.
type FirewallProfile struct {
	Name                 string `json:"name"`
	Enabled              bool   `json:"enabled"`
	DefaultInboundAction string `json:"defaultInboundAction,omitempty"` // Block, Allow or NotConfigured (= Block)
}

// FirewallRule is a rule with its UDP port filter.
type FirewallRule struct {
	Name        string   `json:"name,omitempty"`
	DisplayName string   `json:"displayName,omitempty"`
	Enabled     bool     `json:"enabled"`
	Direction   string   `json:"direction,omitempty"` // Inbound, Outbound
	Action      string   `json:"action,omitempty"`    // Allow, Block
	Profile     string   `json:"profile,omitempty"`   // "Any" or "Domain, Private", ...
	Protocol    string   `json:"protocol,omitempty"`  // UDP, Any
	LocalPorts  []string `json:"localPorts,omitempty"`
	Program     string   `json:"program,omitempty"` // "Any" when not limited to a program
	// RemoteAddresses limit the rule to some peers; empty or "Any" for all.
	RemoteAddresses []string `json:"remoteAddresses,omitempty"`
}

// AllPeers says whether the rule applies to every remote address.
func (r FirewallRule) AllPeers() bool {
	for _, a := range r.RemoteAddresses {
		if !strings.EqualFold(strings.TrimSpace(a), "Any") && strings.TrimSpace(a) != "" {
			return false
		}
	}
	return true
}

// ConnectionCategory is the firewall profile an interface's network is in.
type ConnectionCategory struct {
	InterfaceAlias string `json:"interfaceAlias"`
	Category       string `json:"category"` // DomainAuthenticated, Private, Public
}

// ProfileFor names the firewall profile of a connection category.
func ProfileFor(category string) string {
	if strings.HasPrefix(strings.ToLower(category), "domain") {
		return "Domain"
	}
	return category
}

// CoversUDPPort says whether the rule's protocol and local ports include
// UDP port p, for every program.
func (r FirewallRule) CoversUDPPort(p int) bool { return r.CoversPort("UDP", p, "") }

// HasCollected says whether the collector gathered the rules for a
// protocol and port ("TCP", 10250); a collected entry may be a range
// ("TCP:30000-32767").
func (fw *HostFirewall) HasCollected(proto string, port int) bool {
	for _, c := range fw.Collected {
		p, ports, ok := strings.Cut(strings.TrimSpace(c), ":")
		if !ok || !strings.EqualFold(p, proto) {
			continue
		}
		if portSpanHas(ports, port) {
			return true
		}
	}
	return false
}

// portSpanHas says whether a port or range as the firewall writes them
// ("10250", "30000-32767") includes p.
func portSpanHas(span string, p int) bool {
	lo, hi, isRange := strings.Cut(span, "-")
	a, err1 := strconv.Atoi(strings.TrimSpace(lo))
	b, err2 := a, error(nil)
	if isRange {
		b, err2 = strconv.Atoi(strings.TrimSpace(hi))
	}
	return err1 == nil && err2 == nil && a <= p && p <= b
}

// CoversPort says whether the rule's protocol and local ports include
// port p of proto ("TCP", "UDP"), for every program or for program (an
// executable's file name such as kubelet.exe; "" for every program only).
func (r FirewallRule) CoversPort(proto string, p int, program string) bool {
	number := map[string]string{"TCP": "6", "UDP": "17"}[strings.ToUpper(proto)]
	if rp := strings.ToUpper(r.Protocol); rp != strings.ToUpper(proto) && rp != "ANY" && rp != number {
		return false
	}
	if r.Program != "" && !strings.EqualFold(r.Program, "Any") {
		base := r.Program[strings.LastIndexAny(r.Program, `\/`)+1:]
		if program == "" || !strings.EqualFold(base, program) {
			return false
		}
	}
	if len(r.LocalPorts) == 0 && strings.EqualFold(r.Protocol, "Any") {
		return true // an any-protocol rule has no port filter: every port
	}
	for _, lp := range r.LocalPorts {
		if strings.EqualFold(lp, "Any") {
			return true
		}
		if portSpanHas(lp, p) {
			return true
		}
	}
	return false
}

// AppliesTo says whether the rule is active in a profile.
func (r FirewallRule) AppliesTo(profile string) bool {
	if r.Profile == "" || strings.EqualFold(r.Profile, "Any") {
		return true
	}
	for _, p := range strings.Split(r.Profile, ",") {
		if strings.EqualFold(strings.TrimSpace(p), profile) {
			return true
		}
	}
	return false
}
