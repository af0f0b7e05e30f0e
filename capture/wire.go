package capture

// The numbers of the wire formats the decoder reads, by their names in the
// IANA registries and RFCs, so that a case says what it matches.

// EtherTypes (IEEE 802 / IANA).
const (
	etherIPv4   = 0x0800
	etherIPv6   = 0x86DD
	etherTEB    = 0x6558 // Transparent Ethernet Bridging: Geneve's "Ethernet inside"
	etherVLAN   = 0x8100 // 802.1Q
	etherQinQ   = 0x88A8 // 802.1ad
	etherQinQv1 = 0x9100 // pre-standard QinQ
)

// IP protocol numbers (IANA).
const (
	ipProtoICMP     = 1
	ipProtoTCP      = 6
	ipProtoUDP      = 17
	ipProtoGRE      = 47
	ipProtoICMPv6   = 58
	ipv6HopByHop    = 0
	ipv6Routing     = 43
	ipv6HdrFragment = 44
	ipv6AH          = 51
	ipv6DestOptions = 60
)

// The tunnel headers, as the RFCs draw them.
//
// VXLAN (RFC 7348 §5), 8 bytes after UDP to port 4789 (flannel on Linux:
// 8472):
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|R|R|R|R|I|R|R|R|            Reserved                           |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                VXLAN Network Identifier (VNI) |   Reserved    |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
// then the inner Ethernet frame. Only the I flag (0x08 of the first byte)
// is defined; a receiver ignores the others.
//
// Geneve (RFC 8926 §3.4), 8 bytes and Opt Len × 4 bytes of options after
// UDP to port 6081:
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|Ver|  Opt Len  |O|C|    Rsvd.  |          Protocol Type        |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|        Virtual Network Identifier (VNI)       |    Reserved   |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                    Variable-Length Options                    |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
// The Protocol Type is an EtherType: etherTEB (Ethernet), etherIPv4 or
// etherIPv6; a Ver other than 0 is not Geneve.
const (
	vxlanHeaderLen  = 8
	vxlanFlagI      = 0x08
	geneveHeaderLen = 8
)
