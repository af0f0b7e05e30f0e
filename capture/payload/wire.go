package payload

// The numbers of the wire formats the walk reads, by their names in the
// IANA registries, RFCs and libpcap's link-type list.

// EtherTypes (IEEE 802 / IANA).
const (
	etherIPv4   = 0x0800
	etherARP    = 0x0806
	etherIPv6   = 0x86DD
	etherTEB    = 0x6558 // Transparent Ethernet Bridging: Ethernet inside Geneve or GRE
	etherVLAN   = 0x8100 // 802.1Q
	etherQinQ   = 0x88A8 // 802.1ad
	etherQinQv1 = 0x9100 // pre-standard QinQ
)

// IP protocol numbers and IPv6 extension headers (IANA).
const (
	ipProtoICMP     = 1
	ipProtoIPIP     = 4 // IPv4 in IP
	ipProtoTCP      = 6
	ipProtoUDP      = 17
	ipProtoIPv6     = 41 // IPv6 in IP
	ipProtoGRE      = 47
	ipProtoICMPv6   = 58
	ipv6HopByHop    = 0
	ipv6Routing     = 43
	ipv6Fragment    = 44
	ipv6DestOptions = 60
)

// UDP ports: VXLAN's (IANA's, and the Linux kernel's default that flannel
// uses), Geneve's, VXLAN-GPE's, and DNS, whose payload is kept.
const (
	portDNS        = 53
	portVXLAN      = 4789
	portVXLANLinux = 8472
	portGeneve     = 6081
	portGPE        = 4790
)

// Tunnel headers: VXLAN (RFC 7348 §5: flags with I, 0x08, for a valid VNI;
// 24-bit VNI), Geneve (RFC 8926 §3.4: version and options length in 4-byte
// words; protocol type, an EtherType), VXLAN-GPE (next protocol in its 4th
// byte: 1 IPv4, 2 IPv6, 3 Ethernet), GRE (RFC 2784/2890 flags: checksum,
// key and sequence number each add 4 bytes).
const (
	vxlanHeaderLen  = 8
	vxlanFlagI      = 0x08
	geneveHeaderLen = 8
	greChecksum     = 0x8000
	greKey          = 0x2000
	greSequence     = 0x1000
)

// Link types of the captures diag reads (capture/linktype.go).
const (
	linkNull          = 0
	linkEthernet      = 1
	linkDLTRaw        = 12 // DLT_RAW as most systems number it
	linkDLTRawOpenBSD = 14 // DLT_RAW on OpenBSD
	linkRaw           = 101
	linkLoop          = 108
	linkSLL           = 113
	linkIPv4          = 228
	linkIPv6          = 229
	linkSLL2          = 276
)

// maxDepth bounds tunnels in tunnels.
const maxDepth = 4
