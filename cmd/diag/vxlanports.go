package main

import (
	"slices"

	"github.com/spf13/pflag"
)

// vxlanPortsTake is what --vxlan-port takes, for the line that refuses a
// bad value whether it does not parse or is out of range.
const vxlanPortsTake = "UDP ports, 1 to 65535, comma-separated"

// vxlanPortFlag declares --vxlan-port, the VXLAN UDP ports besides the
// defaults, on the commands that read or write captures.
func vxlanPortFlag(f *pflag.FlagSet, ports *[]uint, usage string) {
	f.UintSliceVar(ports, "vxlan-port", nil, usage)
	validValues(f, "vxlan-port", vxlanPortsTake)
}

// checkVXLANPorts refuses --vxlan-port values that are no UDP port: 0 is
// none, and 70000 would be cut to 16 bits (4464) and name other traffic.
func checkVXLANPorts(ports []uint) error {
	for _, p := range ports {
		if p == 0 || p > 65535 {
			return usageErrorf("--vxlan-port must be %s, not %d", vxlanPortsTake, p)
		}
	}
	return nil
}

// vxlanIANAPort is VXLAN's port (RFC 7348), the one Windows uses.
const vxlanIANAPort = 4789

// vxlanPorts is defaults and --vxlan-port's values (checked to be ports),
// each once: --vxlan-port 4789 is not a second port.
func vxlanPorts(ports []uint, defaults ...uint16) []uint16 {
	out := slices.Clone(defaults)
	for _, p := range ports {
		if !slices.Contains(out, uint16(p)) {
			out = append(out, uint16(p))
		}
	}
	return out
}
