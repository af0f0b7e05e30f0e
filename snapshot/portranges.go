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

// ParsePortRanges parses host/portranges.json.
func ParsePortRanges(data []byte, file string) (*PortRanges, error) {
	o, err := firstObject(data)
	if o == nil || err != nil {
		return nil, err
	}
	pr := &PortRanges{Source: file, Excluded: map[string][]PortRange{}, Dynamic: map[string]DynamicPortRange{}}
	for _, proto := range []string{"tcp", "udp"} {
		for _, r := range o.child("excluded", "Excluded").list(proto) {
			start, ok1 := r.num("start", "Start")
			end, ok2 := r.num("end", "End")
			if !ok1 || !ok2 || start < 0 || end > 65535 || end < start {
				continue
			}
			admin, _ := r.boolean("administered", "Administered")
			pr.Excluded[proto] = append(pr.Excluded[proto], PortRange{int(start), int(end), admin})
		}
		if d := o.child("dynamic", "Dynamic").child(proto); d != nil {
			start, ok1 := d.num("start", "Start")
			count, ok2 := d.num("count", "Count")
			if ok1 && ok2 && start > 0 && start <= 65535 && count > 0 && count <= 65536 {
				pr.Dynamic[proto] = DynamicPortRange{int(start), int(count)}
			}
		}
	}
	return pr, nil
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
