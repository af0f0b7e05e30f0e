package capture

import "strconv"

// LinkType is a capture's link-layer header type (the LINKTYPE_ values
// of pcap and pcapng). diag's own, not gopacket's layers.LinkType: that
// package fills megabytes of tables when the program starts, which every
// diag command paid for the few numbers below.
type LinkType uint16

// The link types the decoder reads (decode.go linkLayer).
const (
	LinkTypeNull     LinkType = 0
	LinkTypeEthernet LinkType = 1
	LinkTypeRaw      LinkType = 101
	LinkTypeLoop     LinkType = 108
	LinkTypeLinuxSLL LinkType = 113
	LinkTypeIPv4     LinkType = 228
	LinkTypeIPv6     LinkType = 229
	LinkTypeSLL2     LinkType = 276
)

func (t LinkType) String() string {
	switch t {
	case LinkTypeNull:
		return "Null"
	case LinkTypeEthernet:
		return "Ethernet"
	case LinkTypeRaw, 12, 14:
		return "Raw"
	case LinkTypeLoop:
		return "Loop"
	case LinkTypeLinuxSLL:
		return "Linux SLL"
	case LinkTypeIPv4:
		return "IPv4"
	case LinkTypeIPv6:
		return "IPv6"
	case LinkTypeSLL2:
		return "Linux SLL2"
	}
	return "LinkType(" + strconv.Itoa(int(t)) + ")"
}
