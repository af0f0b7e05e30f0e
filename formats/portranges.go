package formats

import "github.com/wincni/diag/snapshot"

// ParsePortRanges parses host/portranges.json.
func ParsePortRanges(data []byte, file string) (*snapshot.PortRanges, error) {
	o, err := firstObject(data)
	if o == nil || err != nil {
		return nil, err
	}
	pr := &snapshot.PortRanges{Source: file, Excluded: map[string][]snapshot.PortRange{}, Dynamic: map[string]snapshot.DynamicPortRange{}}
	for _, proto := range []string{"tcp", "udp"} {
		for _, r := range o.child("excluded", "Excluded").list(proto) {
			start, ok1 := r.num("start", "Start")
			end, ok2 := r.num("end", "End")
			if !ok1 || !ok2 || start < 0 || end > 65535 || end < start {
				continue
			}
			admin, _ := r.boolean("administered", "Administered")
			pr.Excluded[proto] = append(pr.Excluded[proto], snapshot.PortRange{Start: int(start), End: int(end), Administered: admin})
		}
		if d := o.child("dynamic", "Dynamic").child(proto); d != nil {
			start, ok1 := d.num("start", "Start")
			count, ok2 := d.num("count", "Count")
			if ok1 && ok2 && start > 0 && start <= 65535 && count > 0 && count <= 65536 {
				pr.Dynamic[proto] = snapshot.DynamicPortRange{Start: int(start), Count: int(count)}
			}
		}
	}
	return pr, nil
}
