package snapshot

import "strings"

// policyOf normalizes a policy object: V1 keeps its settings flat beside
// Type, V2 nests them under Settings (older schema documents say Data).
func policyOf(o obj) Policy {
	p := Policy{Type: o.str("Type")}
	if s := o.child("Settings", "Data"); s != nil {
		p.Settings = s
		return p
	}
	p.Settings = make(map[string]any, len(o))
	for k, v := range o {
		if !strings.EqualFold(k, "Type") {
			p.Settings[k] = v
		}
	}
	return p
}

func policiesOf(list []obj) []Policy {
	out := make([]Policy, 0, len(list))
	for _, o := range list {
		out = append(out, policyOf(o))
	}
	return out
}

// settings gives the accessor helpers to a policy's settings.
func (p Policy) settings() obj { return obj(p.Settings) }

// policy type aliases: V1 names on the left, the canonical (V2) name right.
var policyAliases = map[string]string{
	"route":             "SDNRoute",
	"sdnroute":          "SDNRoute",
	"pa":                "ProviderAddress",
	"provideraddress":   "ProviderAddress",
	"outboundnat":       "OutBoundNAT",
	"remotesubnetroute": "RemoteSubnetRoute",
	"hostroute":         "HostRoute",
	"vxlanport":         "VxlanPort",
	"drmacaddress":      "DrMacAddress",
	"netadaptername":    "NetAdapterName",
	"vsid":              "VSID",
	"vlan":              "VLAN",
	"elb":               "ELB",
	"acl":               "ACL",
	"portmapping":       "PortMapping",
	"nat":               "PortMapping", // V1 endpoint NAT policy = port mapping
	"encapoverhead":     "EncapOverhead",
}

// Kind is the canonical policy type: case-insensitive, V1 names mapped to V2.
func (p Policy) Kind() string {
	if k, ok := policyAliases[strings.ToLower(p.Type)]; ok {
		return k
	}
	return p.Type
}

// Num reads a numeric setting of the policy (names case-insensitive; a
// number written as a string counts).
func (p Policy) Num(names ...string) (int64, bool) { return p.settings().num(names...) }

// Str reads a setting as text (a number too).
func (p Policy) Str(names ...string) string { return p.settings().str(names...) }
