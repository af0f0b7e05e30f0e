package anonymize

import (
	"net/netip"

	"github.com/wincni/diag/capture/payload"
)

// frame maps the addresses of one packet in place: every MAC and address
// capture/payload's Walker finds (headers outer and inner through its
// tunnels, VXLAN on the Anonymizer's VXLANPorts too; ARP, ICMP, neighbour
// discovery, DNS answers). The walk updates every checksum by the
// difference (RFC 1624). A packet cut short by the snap length is mapped as
// far as it goes.
func (a *Anonymizer) frame(d []byte, link uint32) {
	if a.walk == nil {
		ports := make([]uint16, 0, len(a.extraPorts))
		for p := range a.extraPorts {
			ports = append(ports, p)
		}
		a.walk = payload.NewWalker(addressMapper{a}, ports...)
	}
	a.walk.Packet(d, link)
}

// addressMapper is the Anonymizer as the walk's Visitor: addresses are
// mapped, payloads are left to the payload clearing.
type addressMapper struct{ a *Anonymizer }

func (m addressMapper) MAC(b []byte)                       { m.a.mapMAC(b) }
func (m addressMapper) IP(b []byte)                        { m.a.mapIP(b) }
func (addressMapper) Payload([]byte, byte, uint16, uint16) {}

func (a *Anonymizer) mapMAC(b []byte) {
	var m [6]byte
	copy(m[:], b)
	out := a.macs.MAC(m)
	copy(b, out[:])
}

func (a *Anonymizer) mapIP(b []byte) {
	addr, ok := netip.AddrFromSlice(b)
	if !ok {
		return
	}
	out := a.addrs.Addr(addr)
	if addr.Is4() {
		v := out.As4()
		copy(b, v[:])
	} else {
		v := out.As16()
		copy(b, v[:])
	}
}
