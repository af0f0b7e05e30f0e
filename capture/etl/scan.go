package etl

import "io"

// Scan reads a whole file for its component rundown and value maps,
// passing over its packets. pktmon logs the rundown when it stops, at the
// end of the file: a reader that must name components as it goes (a
// conversion) scans first, then reads again with UseRundown.
func Scan(in io.Reader, name string, lim Limits) (*Reader, error) {
	r, err := NewReader(in, name, lim)
	if err != nil {
		return nil, err
	}
	r.noPkts = true
	for {
		if err := r.load(); err == io.EOF {
			return r, nil
		} else if err != nil {
			r.Close()
			return nil, err
		}
	}
}

// UseRundown starts r's component table and value maps from those a
// Scan of the same file read; r's own events still add to them.
func (r *Reader) UseRundown(scan *Reader) {
	for id, c := range scan.comps {
		cc := *c
		r.comps[id] = &cc
	}
	for name, m := range scan.maps {
		r.maps[name] = m
	}
	r.vm = scan.vm
	r.vm.names = append([]string(nil), scan.vm.names...)
	r.vm.fromScan = true
}
