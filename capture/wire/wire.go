package wire

// EtherTypes (IEEE 802 / IANA).
const (
	EtherIPv4   = 0x0800
	EtherARP    = 0x0806
	EtherIPv6   = 0x86DD
	EtherTEB    = 0x6558 // Transparent Ethernet Bridging: Ethernet inside Geneve or GRE
	EtherVLAN   = 0x8100 // 802.1Q
	EtherQinQ   = 0x88A8 // 802.1ad
	EtherQinQv1 = 0x9100 // pre-standard QinQ
)

// IP protocol numbers and IPv6 extension headers (IANA).
const (
	IPProtoICMP     = 1
	IPProtoIPIP     = 4 // IPv4 in IP
	IPProtoTCP      = 6
	IPProtoUDP      = 17
	IPProtoIPv6     = 41 // IPv6 in IP
	IPProtoGRE      = 47
	IPProtoICMPv6   = 58
	IPv6HopByHop    = 0
	IPv6Routing     = 43
	IPv6Fragment    = 44
	IPv6AH          = 51
	IPv6DestOptions = 60
)

// UDP ports: VXLAN's (IANA's, and the Linux kernel's default that flannel
// uses), Geneve's, VXLAN-GPE's, and DNS's.
const (
	PortDNS        = 53
	PortVXLAN      = 4789
	PortVXLANLinux = 8472
	PortGeneve     = 6081
	PortGPE        = 4790
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
// The Protocol Type is an EtherType: EtherTEB (Ethernet), EtherIPv4 or
// EtherIPv6; a Ver other than 0 is not Geneve.
//
// VXLAN-GPE (draft-ietf-nvo3-vxlan-gpe) is VXLAN's 8 bytes with a Next
// Protocol in the 4th (1 IPv4, 2 IPv6, 3 Ethernet, 4 NSH); NSH (RFC 8300)
// has the same field in its base header's 4th byte, and its Length (the
// low 6 bits of the 2nd) in 4-byte words. GRE (RFC 2784, 2890)
// is 4 bytes of flags, version and protocol type (an EtherType); the
// checksum, key and sequence number flags each add 4 bytes.
const (
	NextIPv4        = 1 // VXLAN-GPE's and NSH's Next Protocol
	NextIPv6        = 2
	NextEthernet    = 3
	NextNSH         = 4
	VXLANHeaderLen  = 8
	VXLANFlagI      = 0x08
	GeneveHeaderLen = 8
	GREChecksum     = 0x8000
	GREKey          = 0x2000
	GRESequence     = 0x1000
)

// Magic numbers of the capture files diag reads: pcap in either byte order
// with micro- or nanosecond timestamps, pcapng's section header block, and
// gzip around either.
var (
	MagicPcapng = [4]byte{0x0a, 0x0d, 0x0d, 0x0a}
	MagicsPcap  = [4][4]byte{{0xd4, 0xc3, 0xb2, 0xa1}, {0xa1, 0xb2, 0xc3, 0xd4}, {0x4d, 0x3c, 0xb2, 0xa1}, {0xa1, 0xb2, 0x3c, 0x4d}}
	MagicGzip   = [2]byte{0x1f, 0x8b}
)
