package snapshot

import (
	"net/netip"
)

// AdapterWithAddr returns the adapter holding address a, if any.
func (s *Snapshot) AdapterWithAddr(a netip.Addr) *HostAdapter {
	for _, ad := range s.Adapters {
		for _, p := range ad.Addresses {
			if p.Addr() == a {
				return ad
			}
		}
	}
	return nil
}
