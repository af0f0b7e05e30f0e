package payload

import "encoding/binary"

// OnesSum is the 16-bit ones'-complement sum of b, read as big-endian
// words from its start (a last odd byte is the high half of a word).
func OnesSum(b []byte) uint32 {
	var s uint64
	for len(b) >= 8 {
		s += uint64(binary.BigEndian.Uint16(b)) + uint64(binary.BigEndian.Uint16(b[2:])) +
			uint64(binary.BigEndian.Uint16(b[4:])) + uint64(binary.BigEndian.Uint16(b[6:]))
		b = b[8:]
	}
	for len(b) >= 2 {
		s += uint64(binary.BigEndian.Uint16(b))
		b = b[2:]
	}
	if len(b) == 1 {
		s += uint64(b[0]) << 8
	}
	return Fold(s)
}

// Fold folds a sum of 16-bit words to 16 bits, carries added back.
func Fold(v uint64) uint32 {
	for v>>16 != 0 {
		v = v&0xffff + v>>16
	}
	return uint32(v)
}

// Adjust updates the checksum field sum for covered data whose
// ones'-complement sum went from m to m2 (RFC 1624, eqn. 3): a checksum
// that was right stays right, one that was wrong stays wrong by as much.
func Adjust(sum []byte, m, m2 uint32) {
	if m == m2 {
		return
	}
	hc := uint64(binary.BigEndian.Uint16(sum))
	v := Fold((^hc & 0xffff) + uint64(^m&0xffff) + uint64(m2))
	binary.BigEndian.PutUint16(sum, ^uint16(v))
}

// PartialSum is the folded, uncomplemented pseudo-header sum a checksum
// left to the NIC (transmit offload) holds, with the length or without
// it (Windows LSO).
func PartialSum(addrs []byte, proto byte, length int, withLen bool) uint32 {
	s := uint64(OnesSum(addrs)) + uint64(proto)
	if withLen {
		s += uint64(length)
	}
	return Fold(s)
}
