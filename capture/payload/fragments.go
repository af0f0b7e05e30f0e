package payload

import "github.com/wincni/diag/capture/wire"

// A datagram cut into IP fragments: the fragments after the first carry
// its data with no transport header, and the first one's transport
// checksum covers them. Their data is handed to the Visitor as payload
// (but a DNS datagram's), and what changes in it is carried into the first
// fragment's checksum, so that the reassembled datagram's stays right: at
// once when the first was walked, else when it is. The state is bounded:
// past maxFragments datagrams it starts again (a datagram whose first
// fragment comes that much later keeps its payload cleared, with its
// checksum off by the cleared part).
const maxFragments = 4096

type fragKey struct {
	src, dst [16]byte // as captured, before the Visitor saw them
	id       uint32
	proto    byte
}

type fragState struct {
	seen  bool   // the first fragment was walked
	sum   []byte // its transport checksum, nil when none is kept up
	udp   bool
	keep  bool   // DNS: its data stays
	m, m2 uint32 // the data's sums before and after, while the first is not seen
}

func (w *Walker) frag(k fragKey) *fragState {
	st := w.frags[k]
	if st == nil {
		if w.frags == nil || len(w.frags) >= maxFragments {
			w.frags = map[fragKey]*fragState{}
		}
		st = &fragState{}
		w.frags[k] = st
	}
	return st
}

// firstFragment records the first fragment of a datagram (seg, from its
// transport header) and its checksum field, and applies what its later
// fragments, walked before it, changed.
func (w *Walker) firstFragment(k fragKey, seg []byte, sum []byte) {
	st := w.frag(k)
	st.seen, st.sum, st.udp = true, sum, k.proto == wire.IPProtoUDP
	if (k.proto == wire.IPProtoTCP || k.proto == wire.IPProtoUDP) && len(seg) >= 4 {
		st.keep = be16(seg[0:2]) == wire.PortDNS || be16(seg[2:4]) == wire.PortDNS
	}
	if sum != nil && st.m != st.m2 {
		adjustSum(sum, st.m, st.m2, st.udp)
	}
	st.m, st.m2 = 0, 0
}

// continuation walks a later fragment's data: TCP and UDP data is payload
// (ICMP's and other protocols' stays as it is).
func (w *Walker) continuation(k fragKey, data []byte) {
	if k.proto != wire.IPProtoTCP && k.proto != wire.IPProtoUDP || len(data) == 0 {
		return
	}
	st := w.frag(k)
	if st.keep {
		return
	}
	before := OnesSum(data) // the data starts at a multiple of 8 bytes: the words align
	w.visit.Payload(data, k.proto, 0, 0)
	after := OnesSum(data)
	switch {
	case before == after:
	case !st.seen:
		st.m, st.m2 = Fold(uint64(st.m)+uint64(before)), Fold(uint64(st.m2)+uint64(after))
	case st.sum != nil:
		adjustSum(st.sum, before, after, st.udp)
	}
}
