package etl

import (
	"encoding/binary"
	"fmt"
)

// Microsoft-Windows-NDIS-PacketCapture is what `netsh trace start
// capture=yes` logs: event 1001, a packet fragment seen at a network
// adapter (microsoft/etl2pcapng src/main.c, tidPacketFragment):
//
//	MiniportIfIndex u32, LowerIfIndex u32, FragmentSize u32, Fragment[FragmentSize]
//
// Its keywords say the medium, the direction and where a packet starts
// and ends. Since Windows 8.1 every packet is one event with both
// PacketStart and PacketEnd; packets logged in pieces are counted, not
// reassembled. Event 1002 (802.11 metadata) and 1003 (the vSwitch's
// view, with port names) are counted, not decoded.
var NDISCapProvider = mustGUID("2ed6006e-4729-4609-b423-3ee7bcd678ef")

const (
	evNDISFragment = 1001

	kwEthernet    = 0x1
	kwWirelessWAN = 0x200 // raw IP
	kwNative80211 = 0x10000
	kwTruncated   = 0x2000000
	kwPacketStart = 0x40000000
	kwPacketEnd   = 0x80000000
	kwSendPath    = 0x100000000
	kwReceivePath = 0x200000000

	ndisFixedSize = 12
)

// checkNDISFragment says whether an event 1001 is a whole packet the
// reader passes on; pieces and short events are counted.
func (r *Reader) checkNDISFragment(keyword uint64, u []byte) bool {
	if len(u) < ndisFixedSize || ndisFixedSize+int(binary.LittleEndian.Uint32(u[8:])) > len(u) {
		r.stats.BadEvents++
		return false
	}
	if keyword&(kwPacketStart|kwPacketEnd) != kwPacketStart|kwPacketEnd {
		r.stats.NDISPieces++
		return false
	}
	return true
}

// decodeNDISFragment fills p from an event 1001: the adapter (its
// LowerIfIndex, as etl2pcapng keys interfaces) stands for the component,
// the medium and direction come from the keywords. The original length
// of a packet logged truncated is read from its IP header, as etl2pcapng
// does; else it is what was logged.
func decodeNDISFragment(p *Packet, keyword uint64, u []byte) error {
	if len(u) < ndisFixedSize {
		return fmt.Errorf("a packet fragment event of %d bytes, under its %d-byte fixed part", len(u), ndisFixedSize)
	}
	le := binary.LittleEndian
	lower := le.Uint32(u[4:])
	n := int(le.Uint32(u[8:]))
	if ndisFixedSize+n > len(u) {
		return fmt.Errorf("a packet fragment event logging %d bytes with %d in the event", n, len(u)-ndisFixedSize)
	}
	*p = Packet{Data: u[ndisFixedSize : ndisFixedSize+n], IfIndex: lower, Component: uint16(lower), Appearance: 1, Type: PacketEthernet}
	switch {
	case keyword&kwWirelessWAN != 0:
		p.Type = PacketIP
	case keyword&kwNative80211 != 0:
		p.Type = PacketWiFi
	}
	switch {
	case keyword&kwSendPath != 0:
		p.Direction = 2 // Out
	case keyword&kwReceivePath != 0:
		p.Direction = 1 // In
	}
	p.OriginalSize = n
	if keyword&kwTruncated != 0 {
		p.OriginalSize = max(n, ipLength(p.Type, p.Data))
	}
	return nil
}

// ipLength is a frame's length by its IP header (Ethernet without VLAN
// tags, or raw IP); 0 when it has none.
func ipLength(t PacketType, b []byte) int {
	link := 0
	if t == PacketEthernet {
		if len(b) < 14 {
			return 0
		}
		link, b = 14, b[14:]
	} else if t != PacketIP {
		return 0
	}
	switch {
	case len(b) >= 4 && b[0]>>4 == 4:
		return link + int(binary.BigEndian.Uint16(b[2:]))
	case len(b) >= 6 && b[0]>>4 == 6:
		return link + 40 + int(binary.BigEndian.Uint16(b[4:]))
	}
	return 0
}
