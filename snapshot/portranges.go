package snapshot

// PortRanges is host/portranges.json: the excluded port ranges and the
// dynamic (ephemeral) port range of TCP and UDP, as netsh shows them.
type PortRanges struct {
	Source   string                      `json:"source,omitempty"`
	Excluded map[string][]PortRange      `json:"excluded,omitempty"` // "tcp", "udp"
	Dynamic  map[string]DynamicPortRange `json:"dynamic,omitempty"`
}

// PortRange is an inclusive range of excluded ports.
type PortRange struct {
	Start        int  `json:"start"`
	End          int  `json:"end"`
	Administered bool `json:"administered,omitempty"`
}

// DynamicPortRange is where the ephemeral ports come from.
type DynamicPortRange struct {
	Start int `json:"start"`
	Count int `json:"count"`
}

// FreeBlocks counts the 64-port blocks of proto's dynamic range that no
// excluded range touches: HNS reserves ports in blocks of 64 (networkhealth
// CountAvailableEphemeralPorts). ok is false when the range is unknown.
func (p *PortRanges) FreeBlocks(proto string) (free, total int, ok bool) {
	d, ok := p.Dynamic[proto]
	if !ok {
		return 0, 0, false
	}
	end := min(d.Start+d.Count-1, 65535)
	for lo := d.Start; lo+63 <= end; lo += 64 {
		total++
		hi := lo + 63
		taken := false
		for _, r := range p.Excluded[proto] {
			if r.Start <= hi && r.End >= lo {
				taken = true
				break
			}
		}
		if !taken {
			free++
		}
	}
	return free, total, true
}
