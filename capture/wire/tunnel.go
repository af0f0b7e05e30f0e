package wire

// Ports is a set of UDP ports, a bitmap: a lookup per packet costs a load.
type Ports [1024]uint64

// Add puts p in the set.
func (s *Ports) Add(p uint16) { s[p>>6] |= 1 << (p & 63) }

// Has says whether p is in the set.
func (s *Ports) Has(p uint16) bool { return s[p>>6]&(1<<(p&63)) != 0 }

// Tunnel is the tunnel protocol a UDP datagram carries.
type Tunnel uint8

// The tunnels diag reads.
const (
	TunnelNone Tunnel = iota
	TunnelVXLAN
	TunnelGeneve
	TunnelGPE
)

// TunnelOf says what a UDP datagram carries, by its ports: the destination
// port first, then the source port, as a VTEP receives it (gopacket does
// the same; tshark tries the lower port first). vxlan are the ports read
// as VXLAN.
func TunnelOf(sport, dport uint16, vxlan *Ports) Tunnel {
	for _, p := range [2]uint16{dport, sport} {
		switch {
		case vxlan.Has(p):
			return TunnelVXLAN
		case p == PortGeneve:
			return TunnelGeneve
		case p == PortGPE:
			return TunnelGPE
		}
	}
	return TunnelNone
}
