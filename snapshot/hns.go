package snapshot

import (
	"net/netip"
)

// ContainsAddr reports whether any subnet of the network holds a.
func (n *Network) ContainsAddr(a netip.Addr) bool {
	for _, s := range n.Subnets {
		if s.Prefix.IsValid() && s.Prefix.Contains(a) {
			return true
		}
	}
	return false
}

// Prefixes are the network's subnet prefixes that parsed, in order.
func (n *Network) Prefixes() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range n.Subnets {
		if s.Prefix.IsValid() {
			out = append(out, s.Prefix)
		}
	}
	return out
}

// IsOverlayOrBridge reports the network types whose vSwitch is bound to a
// physical adapter and carries pod traffic between nodes.
func (n *Network) IsOverlayOrBridge() bool {
	return n.Type == TypeOverlay || n.Type == TypeL2Bridge
}
