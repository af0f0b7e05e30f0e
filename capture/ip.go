package capture

import "github.com/wincni/diag/capture/wire"

// ipHdr is what parseIP read of an IP header.
type ipHdr struct {
	v6              bool
	src, dst        [16]byte
	proto           uint8
	start, ihl, l4  int // l4 is -1 when the transport header cannot be found
	total           int // total length from the header (IPv6: payload + 40); 0 when it says 0
	id              uint16
	frag, firstFrag bool
	bogus           bool // the header contradicts itself
	// A source route not yet exhausted (IPv4 LSRR/SSRR, an IPv6 routing
	// header with segments left): the final destination, which the
	// transport checksum's pseudo-header holds instead of dst.
	routed bool
	final  [16]byte
}

// parseIP reads the IPv4 or IPv6 header at off, following IPv6 extension
// headers (hop-by-hop, routing, destination options, fragment, AH) to the
// transport header. It returns false when there is no IP header to read.
func parseIP(data []byte, off int, etype uint16, h *ipHdr) bool {
	h.start, h.l4 = off, -1
	switch etype {
	case wire.EtherIPv4:
		if !inRange(data, off, 20) || data[off]>>4 != 4 {
			return false
		}
		h.ihl = int(data[off]&0x0f) * 4
		h.total = int(be16(data, off+2))
		h.id = be16(data, off+4)
		frag := be16(data, off+6)
		h.frag, h.firstFrag = frag&0x2000 != 0 || frag&0x1fff != 0, frag&0x1fff == 0
		h.proto = data[off+9]
		copy(h.src[12:], data[off+12:off+16])
		copy(h.dst[12:], data[off+16:off+20])
		h.src[10], h.src[11], h.dst[10], h.dst[11] = 0xff, 0xff, 0xff, 0xff
		if h.ihl < 20 || h.total != 0 && h.total < h.ihl {
			h.bogus = true
			return true
		}
		if inRange(data, off, h.ihl) {
			h.l4 = off + h.ihl
			if h.ihl > 20 {
				h.sourceRoute4(data[off+20 : off+h.ihl])
			}
		}
		return true
	case wire.EtherIPv6:
		if !inRange(data, off, 40) || data[off]>>4 != 6 {
			return false
		}
		h.v6, h.ihl = true, 40
		if pl := int(be16(data, off+4)); pl != 0 {
			h.total = pl + 40
		}
		copy(h.src[:], data[off+8:off+24])
		copy(h.dst[:], data[off+24:off+40])
		next, p := data[off+6], off+40
		h.firstFrag = true
	walk:
		for i := 0; i < 8; i++ {
			switch next {
			case wire.IPv6HopByHop, wire.IPv6Routing, wire.IPv6DestOptions:
				if !inRange(data, p, 2) {
					h.proto = next
					return true
				}
				if next == wire.IPv6Routing {
					h.routing6(data, p)
				}
				next, p = data[p], p+(int(data[p+1])+1)*8
			case wire.IPv6AH:
				if !inRange(data, p, 2) {
					h.proto = next
					return true
				}
				next, p = data[p], p+(int(data[p+1])+2)*4
			case wire.IPv6Fragment:
				if !inRange(data, p, 8) {
					h.proto = next
					return true
				}
				fo := be16(data, p+2)
				h.frag, h.firstFrag = true, fo&0xfff8 == 0
				next, p = data[p], p+8
				if !h.firstFrag {
					break walk // the rest is a later fragment's bytes
				}
			default:
				break walk
			}
		}
		h.proto = next
		if h.total != 0 && p > off+h.total {
			h.bogus = true
			return true
		}
		if p <= len(data) {
			h.l4 = p
		}
		return true
	}
	return false
}

// sourceRoute4 finds the final destination in IPv4 options: the last
// address of a loose or strict source route whose pointer has not gone
// past it (RFC 791). Once the route is exhausted the header's
// destination is the final one.
func (h *ipHdr) sourceRoute4(opts []byte) {
	for i := 0; i < len(opts); {
		switch t := opts[i]; t {
		case 0: // end of options
			return
		case 1: // no-operation
			i++
			continue
		case 131, 137: // LSRR, SSRR
			if i+3 > len(opts) {
				return
			}
			n, ptr := int(opts[i+1]), int(opts[i+2])
			if n >= 7 && i+n <= len(opts) && ptr <= n {
				copy(h.final[12:], opts[i+n-4:i+n])
				h.final[10], h.final[11] = 0xff, 0xff
				h.routed = true
			}
			return
		}
		if i+1 >= len(opts) || opts[i+1] < 2 {
			return
		}
		i += int(opts[i+1])
	}
}

// routing6 finds the final destination in an IPv6 routing header at p
// with segments left (RFC 8200 §8.1): the last address of type 0 and 2
// (Mobile IPv6) headers, segment list[0] of a segment routing header
// (type 4, RFC 8754). Other types keep the header's destination.
func (h *ipHdr) routing6(data []byte, p int) {
	if !inRange(data, p, 8) || data[p+3] == 0 {
		return
	}
	n := int(data[p+1]) / 2 // addresses
	at := -1
	switch data[p+2] {
	case 0, 2:
		at = p + 8 + (n-1)*16
	case 4:
		at = p + 8
	}
	if n >= 1 && at >= 0 && inRange(data, at, 16) {
		copy(h.final[:], data[at:at+16])
		h.routed = true
	}
}

// trim cuts what follows the IP packet (Ethernet padding).
func (h *ipHdr) trim(data []byte) []byte {
	if end := h.start + h.total; h.total > 0 && end >= h.l4 && end < len(data) {
		return data[:end]
	}
	return data
}
