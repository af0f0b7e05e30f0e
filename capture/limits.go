package capture

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math"
	"math/bits"
)

// Limits bound what one analysis holds in memory, whatever the capture
// says: a part over a limit is skipped (or counted without detail) and the
// report says so in a note that names the flag raising the limit. A zero
// field takes its default.
type Limits struct {
	// MaxPacketSize bounds one captured packet (a pcap record, a pcapng
	// packet block). A larger one is skipped without being read into
	// memory. Jumbo frames and GSO/BIG TCP super-packets fit the default.
	MaxPacketSize int
	// MaxInterfaces bounds the pcapng interfaces of one section; packets on
	// the interfaces after them are skipped.
	MaxInterfaces int
	// MaxFlows bounds the inner flows tracked one by one; the packets of
	// further flows are counted together (UntrackedFlows).
	MaxFlows int
	// MaxTunnels bounds the tunnels (outer source, destination, VNI)
	// tracked one by one; the packets of further tunnels are counted
	// together (UntrackedTunnels).
	MaxTunnels int
}

// Defaults of Limits, and the flags of diag capture decode that raise them.
const (
	DefaultMaxPacketSize = 256 << 10
	DefaultMaxInterfaces = 65536
	DefaultMaxFlows      = 200000
	DefaultMaxTunnels    = 65536

	FlagMaxPacketSize = "--max-packet-size"
	FlagMaxInterfaces = "--max-interfaces"
	FlagMaxFlows      = "--max-flows"
	FlagMaxTunnels    = "--max-tunnels"
)

// maxBlockOptions is how many bytes of options (pcapng) a packet or
// interface block may carry besides its packet before it counts as too
// large.
const maxBlockOptions = 64 << 10

// withDefaults fills the zero (or negative) fields.
func (l Limits) withDefaults() Limits {
	if l.MaxPacketSize <= 0 {
		l.MaxPacketSize = DefaultMaxPacketSize
	}
	if l.MaxInterfaces <= 0 {
		l.MaxInterfaces = DefaultMaxInterfaces
	}
	if l.MaxFlows <= 0 {
		l.MaxFlows = DefaultMaxFlows
	}
	if l.MaxTunnels <= 0 {
		l.MaxTunnels = DefaultMaxTunnels
	}
	return l
}

// readSkips counts what a reader skipped because of a limit.
type readSkips struct {
	packets      int64 // packets larger than MaxPacketSize
	largest      int64 // the largest of them, bytes
	firstAt      int64 // byte offset of the first in the (decompressed) file
	ifaces       int64 // pcapng interfaces over MaxInterfaces
	ifacePackets int64 // packets on those interfaces
	firstIface   int64 // the first interface ID over the limit
	bigBlocks    int64 // interface blocks whose options were too large to read
}

func (s *readSkips) packet(size, at int64) {
	if s.packets == 0 {
		s.firstAt = at
	}
	s.packets++
	s.largest = max(s.largest, size)
}

// notes says what was skipped in file name, naming the flags.
func (s *readSkips) notes(name string, lim Limits) []string {
	var out []string
	if s.packets > 0 {
		what := fmt.Sprintf("1 packet of %d bytes (at byte %d)", s.largest, s.firstAt)
		if s.packets > 1 {
			what = fmt.Sprintf("%d packets (the largest %d bytes, the first at byte %d)", s.packets, s.largest, s.firstAt)
		}
		out = append(out, fmt.Sprintf("%s: %s larger than the %d-byte packet limit skipped unread; %s raises the limit.",
			name, what, lim.MaxPacketSize, FlagMaxPacketSize))
	}
	if s.ifaces > 0 {
		out = append(out, fmt.Sprintf("%s: %d pcapng interfaces past the limit of %d per section (the first is interface %d) skipped with the packets on them (%d); %s raises the limit.",
			name, s.ifaces, lim.MaxInterfaces, s.firstIface, s.ifacePackets, FlagMaxInterfaces))
	}
	if s.bigBlocks > 0 {
		out = append(out, fmt.Sprintf("%s: %d pcapng interface blocks carry more than %d bytes of options: their names and timestamp settings were not read.",
			name, s.bigBlocks, maxBlockOptions))
	}
	return out
}

// UntrackedFlows counts the packets of the inner flows past
// Limits.MaxFlows: they are not tracked one by one.
type UntrackedFlows struct {
	Flows   int64 `json:"flowsEstimated"` // distinct flows, estimated (within a few percent)
	Packets int64 `json:"packets"`
	Bytes   int64 `json:"bytes"`
	SYNs    int64 `json:"syns"`   // TCP SYNs without ACK among them
	Resets  int64 `json:"resets"` // TCP RSTs among them
}

// UntrackedTunnels counts the VXLAN packets of the tunnels past
// Limits.MaxTunnels.
type UntrackedTunnels struct {
	Tunnels int64 `json:"tunnelsEstimated"`
	Packets int64 `json:"packets"`
	Bytes   int64 `json:"bytes"`
}

// overflow is the state kept for what is past a limit: a distinct-count
// estimate (HyperLogLog) and, for flows, a Bloom filter of their address
// pairs so that CAP-01 does not take a plain flow whose encapsulated twin
// is untracked for a leak.
type overflow struct {
	seed  maphash.Seed
	hll   hll
	bloom []uint64
}

const bloomBits = 1 << 23 // 1 MiB: under 1% false positives up to a million pairs

// hll is a HyperLogLog sketch of 2^12 registers (standard error under 2%).
type hll [1 << 12]uint8

func (h *hll) add(x uint64) {
	i := x >> 52
	rank := uint8(bits.LeadingZeros64(x<<12|1<<11)) + 1
	if rank > h[i] {
		h[i] = rank
	}
}

func (h *hll) estimate() int64 {
	const m = float64(len(h))
	sum, zeros := 0.0, 0
	for _, r := range h {
		sum += math.Ldexp(1, -int(r))
		if r == 0 {
			zeros++
		}
	}
	e := 0.7213 / (1 + 1.079/m) * m * m / sum
	if e <= 2.5*m && zeros > 0 {
		e = m * math.Log(m/float64(zeros))
	}
	return int64(e + 0.5)
}

func (o *overflow) hash(b []byte) uint64 { return maphash.Bytes(o.seed, b) }

// pairHash hashes the two ends of a conversation, either direction alike.
func (o *overflow) pairHash(a [16]byte, ap uint16, b [16]byte, bp uint16) uint64 {
	if !less(a, ap, b, bp) {
		a, ap, b, bp = b, bp, a, ap
	}
	var k [36]byte
	copy(k[:], a[:])
	copy(k[16:], b[:])
	binary.LittleEndian.PutUint16(k[32:], ap)
	binary.LittleEndian.PutUint16(k[34:], bp)
	return o.hash(k[:])
}

func (o *overflow) bloomAdd(h uint64) {
	if o.bloom == nil {
		o.bloom = make([]uint64, bloomBits/64)
	}
	h1, h2 := h, h>>32|h<<32|1
	for i := 0; i < 4; i++ {
		bit := h1 % bloomBits
		o.bloom[bit/64] |= 1 << (bit % 64)
		h1 += h2
	}
}

func (o *overflow) bloomHas(h uint64) bool {
	if o.bloom == nil {
		return false
	}
	h1, h2 := h, h>>32|h<<32|1
	for i := 0; i < 4; i++ {
		bit := h1 % bloomBits
		if o.bloom[bit/64]&(1<<(bit%64)) == 0 {
			return false
		}
		h1 += h2
	}
	return true
}
