package snapshot

// VFPPort is one vSwitch port with what vfpctrl printed about it.
type VFPPort struct {
	Name               string            `json:"name"` // port GUID, upper case
	FriendlyName       string            `json:"friendlyName,omitempty"`
	SwitchName         string            `json:"switchName,omitempty"`
	SwitchFriendlyName string            `json:"switchFriendlyName,omitempty"`
	PortID             string            `json:"portID,omitempty"`
	MAC                string            `json:"mac,omitempty"`
	PortType           string            `json:"portType,omitempty"`
	VMName             string            `json:"vmName,omitempty"`
	Blocked            *bool             `json:"blocked,omitempty"` // from /get-port-state; nil when not dumped
	Enabled            *bool             `json:"enabled,omitempty"`
	Layers             []*VFPLayer       `json:"layers,omitempty"`
	Counters           map[string]int64  `json:"counters,omitempty"` // /get-port-counter, "OUT Total packets"
	State              map[string]string `json:"state,omitempty"`    // other /get-port-state lines
	EndpointID         string            `json:"endpointID,omitempty"`
	Source             string            `json:"source,omitempty"`
}

// VFPLayer is a layer of a port's rule set.
type VFPLayer struct {
	Name         string      `json:"name"`
	FriendlyName string      `json:"friendlyName,omitempty"`
	Priority     int64       `json:"priority,omitempty"`
	Flags        string      `json:"flags,omitempty"`
	Groups       []*VFPGroup `json:"groups,omitempty"`
}

// VFPGroup is a group of rules within a layer, for one direction.
type VFPGroup struct {
	Name         string     `json:"name"`
	FriendlyName string     `json:"friendlyName,omitempty"`
	Priority     int64      `json:"priority,omitempty"`
	Direction    string     `json:"direction,omitempty"`
	Type         string     `json:"type,omitempty"`
	Rules        []*VFPRule `json:"rules,omitempty"`
}

// VFPRule is one rule. Rule IDs are often empty; the friendly name is what
// identifies a rule in practice.
type VFPRule struct {
	ID                string            `json:"id,omitempty"`
	FriendlyName      string            `json:"friendlyName,omitempty"`
	Priority          int64             `json:"priority,omitempty"`
	Flags             string            `json:"flags,omitempty"`
	Type              string            `json:"type,omitempty"` // block, allow, dynnat, lbnat, encap, routeencap, paroute, ...
	Conditions        Pairs             `json:"conditions,omitempty"`
	EncapDestinations []string          `json:"encapDestinations,omitempty"`
	Data              []string          `json:"data,omitempty"` // "Rule Data:" and "Modify:" lines
	Props             map[string]string `json:"props,omitempty"`
	Counters          map[string]int64  `json:"counters,omitempty"` // /get-rule-counter
}

// RuleCount counts the rules of all layers.
func (p *VFPPort) RuleCount() int {
	n := 0
	for _, l := range p.Layers {
		for _, g := range l.Groups {
			n += len(g.Rules)
		}
	}
	return n
}
