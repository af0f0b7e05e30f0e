package formats

import "github.com/wincni/diag/snapshot"

// ParseFirewall parses host/firewall.json.
func ParseFirewall(data []byte, file string) (*snapshot.HostFirewall, error) {
	o, err := firstObject(data)
	if o == nil || err != nil {
		return nil, err
	}
	fw := &snapshot.HostFirewall{Source: file, Collected: o.strs("Collected")}
	for _, p := range o.list("Profiles") {
		enabled, _ := p.boolean("Enabled")
		fw.Profiles = append(fw.Profiles, snapshot.FirewallProfile{Name: p.str("Name"), Enabled: enabled, DefaultInboundAction: p.str("DefaultInboundAction")})
	}
	for _, r := range o.list("Rules") {
		enabled, _ := r.boolean("Enabled")
		fw.Rules = append(fw.Rules, snapshot.FirewallRule{
			Name: r.str("Name"), DisplayName: r.str("DisplayName"), Enabled: enabled,
			Direction: r.str("Direction"), Action: r.str("Action"), Profile: r.str("Profile"),
			Protocol: r.str("Protocol"), LocalPorts: r.strs("LocalPort", "LocalPorts"), Program: r.str("Program"),
			RemoteAddresses: r.strs("RemoteAddress", "RemoteAddresses"),
		})
	}
	for _, c := range o.list("ConnectionProfiles", "Networks") {
		fw.Networks = append(fw.Networks, snapshot.ConnectionCategory{InterfaceAlias: c.str("InterfaceAlias"), Category: c.str("NetworkCategory", "Category")})
	}
	return fw, nil
}
