package snapshot

import (
	"strings"
)

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
	// An ASCII type (all of HNS's) is lowered on the stack: this runs for
	// every policy of every endpoint, several times.
	var buf [32]byte
	if n := len(p.Type); n <= len(buf) {
		ascii := true
		for i := 0; i < n && ascii; i++ {
			c := p.Type[i]
			ascii = c < 0x80
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			buf[i] = c
		}
		if ascii {
			if k, ok := policyAliases[string(buf[:n])]; ok {
				return k
			}
			return p.Type
		}
	}
	if k, ok := policyAliases[strings.ToLower(p.Type)]; ok {
		return k
	}
	return p.Type
}

// Num reads a numeric setting of the policy (names case-insensitive; a
// number written as a string counts).
func (p Policy) Num(names ...string) (int64, bool) { return settingInt(p.Settings, names...) }

// Str reads a setting as text (a number too).
func (p Policy) Str(names ...string) string { return settingString(p.Settings, names...) }
