package anonymize

import (
	"crypto/hmac"
	"crypto/sha256"
	"net/netip"
)

// macMapper maps MAC addresses, the same way in every spelling (the
// scanner hands it the six bytes; the spelling is put back around them).
type macMapper struct {
	key   []byte
	addrs *addrMapper
	seen  map[[6]byte][6]byte
}

func newMACMapper(k Key, addrs *addrMapper) *macMapper {
	return &macMapper{key: k.derive("mac"), addrs: addrs, seen: map[[6]byte][6]byte{}}
}

// MAC maps one MAC. Broadcast, zero and multicast MACs are kept (a
// multicast MAC is made from a multicast IP, which is kept too). A
// universally administered MAC keeps its vendor (OUI) and gets a keyed
// permutation of the rest; a locally administered one keeps its first two
// bytes and maps the other four as an IPv4 address, because that is how
// flannel (MacPrefix 0E-2A + the VTEP address) and Docker (02-42 + the
// container address) make them, so such a MAC still names the mapped
// address (unless those bytes cannot be one, see opaqueEmbedded). Both are
// bijections: no two MACs become one.
func (m *macMapper) MAC(b [6]byte) [6]byte {
	if b == [6]byte{} || b == [6]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff} || b[0]&1 != 0 {
		return b
	}
	if out, ok := m.seen[b]; ok {
		return out
	}
	out := b
	embedded := netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]})
	if b[0]&2 != 0 && !opaqueEmbedded(embedded) {
		a := m.addrs.Addr(embedded).As4()
		copy(out[2:], a[:])
	} else {
		v := m.feistel24(uint32(b[3])<<16 | uint32(b[4])<<8 | uint32(b[5]))
		out[3], out[4], out[5] = byte(v>>16), byte(v>>8), byte(v)
	}
	m.seen[b] = out
	return out
}

// opaqueEmbedded: four bytes of a locally administered MAC that cannot be
// an address it was made from (QEMU's 52-54-00-12-35-02 holds 0.18.53.2):
// the MAC is mapped like a vendor's, within the same range so that the
// two schemes never meet.
func opaqueEmbedded(a netip.Addr) bool {
	b := a.As4()
	return b[0] == 0 || b[0] == 127 || b[0] >= 224
}

// feistel24 is a keyed permutation of 24-bit values: four Feistel rounds
// over 12-bit halves with HMAC-SHA256 as the round function.
func (m *macMapper) feistel24(v uint32) uint32 {
	l, r := v>>12&0xfff, v&0xfff
	for round := byte(0); round < 4; round++ {
		h := hmac.New(sha256.New, m.key)
		h.Write([]byte{round, byte(r >> 8), byte(r)})
		f := h.Sum(nil)
		l, r = r, l^(uint32(f[0])<<4|uint32(f[1])>>4)
	}
	return l<<12 | r
}
