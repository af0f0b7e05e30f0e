package payload

import (
	"encoding/binary"

	"github.com/wincni/diag/capture/wire"
)

// clearer clears the payloads of packets, in place, and counts the bytes:
// the Visitor of a Walker, which keeps the headers and checksums right.
type clearer struct {
	cleared int64
	walk    *Walker
}

func newClearer(vxlanPorts ...uint16) *clearer {
	c := &clearer{}
	c.walk = NewWalker(c, vxlanPorts...)
	return c
}

func be16(b []byte) uint16 { return binary.BigEndian.Uint16(b) }

// frame clears one packet of the given link type.
func (c *clearer) frame(d []byte, link uint32) { c.walk.Packet(d, link) }

// MAC and IP: addresses stay (anonymize is what maps them).
func (c *clearer) MAC([]byte) {}
func (c *clearer) IP([]byte)  {}

// Payload is cleared, but DNS's: names are evidence, and no secret.
func (c *clearer) Payload(p []byte, _ byte, sport, dport uint16) {
	if sport == wire.PortDNS || dport == wire.PortDNS {
		return
	}
	clear(p)
	c.cleared += int64(len(p))
}
