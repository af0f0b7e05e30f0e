package capture

import (
	"encoding/binary"

	"github.com/wincni/diag/capture/wire"
)

// linkLayer returns the offset of the network header and its EtherType.
func linkLayer(data []byte, lt LinkType) (int, uint16, bool) {
	switch lt {
	case LinkTypeEthernet:
		return ethernet(data, 0)
	case LinkTypeLinuxSLL:
		if !inRange(data, 0, 16) {
			return 0, 0, false
		}
		return sllProtocol(data, 16, be16(data, 14))
	case 276: // LINKTYPE_LINUX_SLL2, what tcpdump -i any writes
		if !inRange(data, 0, 20) {
			return 0, 0, false
		}
		return sllProtocol(data, 20, be16(data, 0))
	case LinkTypeRaw, 12, 14, LinkTypeIPv4, LinkTypeIPv6:
		if len(data) == 0 {
			return 0, 0, false
		}
		switch data[0] >> 4 {
		case 4:
			return 0, wire.EtherIPv4, true
		case 6:
			return 0, wire.EtherIPv6, true
		}
	case LinkTypeNull, LinkTypeLoop:
		if !inRange(data, 0, 4) {
			return 0, 0, false
		}
		fam := binary.LittleEndian.Uint32(data)
		if lt == LinkTypeLoop {
			fam = be32(data, 0)
		}
		switch fam {
		case 2:
			return 4, wire.EtherIPv4, true
		case 24, 28, 30:
			return 4, wire.EtherIPv6, true
		}
	}
	return 0, 0, false
}

// ethernet reads an Ethernet II or IEEE 802.3 header at off, and any
// VLAN tags after it.
func ethernet(data []byte, off int) (int, uint16, bool) {
	if !inRange(data, off, 14) {
		return 0, 0, false
	}
	off, etype, ok := vlanTags(data, off+14, be16(data, off+12))
	if ok && etype <= 1500 {
		// An 802.3 length, not an EtherType: an LLC header follows.
		return snap(data, off)
	}
	return off, etype, ok
}

// snap reads an 802.2 LLC header at off: with SNAP (DSAP and SSAP 0xAA,
// UI) and an OUI of 00-00-00 (RFC 1042) or 00-00-F8 (Cisco), the
// EtherType it carries, as tshark follows it. Other LLC frames (spanning
// tree, NetBIOS) carry no IP.
func snap(data []byte, off int) (int, uint16, bool) {
	if !inRange(data, off, 8) || data[off] != 0xaa || data[off+1] != 0xaa || data[off+2] != 0x03 ||
		data[off+3] != 0 || data[off+4] != 0 || data[off+5] != 0 && data[off+5] != 0xf8 {
		return 0, 0, false
	}
	return vlanTags(data, off+8, be16(data, off+6))
}

// sllProtocol follows the protocol type of a Linux cooked header: an
// EtherType, or 4 for an 802.2 LLC frame without its 802.3 header.
func sllProtocol(data []byte, off int, proto uint16) (int, uint16, bool) {
	if proto == 4 {
		return snap(data, off)
	}
	return vlanTags(data, off, proto)
}

// vlanTags skips any number (up to maxVLANTags) of 802.1Q, 802.1ad and
// pre-standard QinQ (0x9100) tags.
func vlanTags(data []byte, off int, etype uint16) (int, uint16, bool) {
	for i := 0; etype == wire.EtherVLAN || etype == wire.EtherQinQ || etype == wire.EtherQinQv1; i++ {
		if i == maxVLANTags || !inRange(data, off, 4) {
			return 0, 0, false
		}
		etype = be16(data, off+2)
		off += 4
	}
	return off, etype, true
}
