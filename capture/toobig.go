package capture

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/wincni/diag/capture/wire"
	"github.com/wincni/diag/finding"
)

// CAP-10: a router on the underlay answered a tunnel packet with ICMP
// "fragmentation needed" (IPv4, type 3 code 4, with the next hop's MTU,
// RFC 1191) or ICMPv6 "packet too big" (type 2, RFC 4443): it dropped the
// packet because it did not fit. The ICMP error quotes the start of the
// packet, so the VTEP pair (and often the VNI) is known.

// tooBigRef is what the decoder read of such an ICMP error.
type tooBigRef struct {
	ok       bool
	mtu      uint32      // the MTU the router announced; 0: not given (routers before RFC 1191)
	src, dst [16]byte    // of the quoted packet: the VTEP that sent it, and its peer
	tun      wire.Tunnel // wire.TunnelVXLAN or wire.TunnelGeneve
	vni      uint32
	hasVNI   bool // the quote reaches the tunnel header
	size     int  // the quoted packet's length, as its IP header gives it
}

// underlayTooBig reads an outer ICMP or ICMPv6 message at l4: a
// "fragmentation needed" or "packet too big" quoting a UDP datagram to a
// VXLAN or Geneve port sets f.tooBig.
func (f *frame) underlayTooBig(data []byte, l4 int, ports *wire.Ports) {
	if !inRange(data, l4, 8) {
		return
	}
	var mtu uint32
	switch typ, code := data[l4], data[l4+1]; {
	case f.proto == wire.IPProtoICMP && !f.v6 && typ == 3 && code == 4:
		mtu = uint32(be16(data, l4+6))
	case f.proto == wire.IPProtoICMPv6 && f.v6 && typ == 2:
		mtu = be32(data, l4+4)
	default:
		return
	}
	q := l4 + 8
	if !inRange(data, q, 1) {
		return
	}
	etype := uint16(wire.EtherIPv4)
	if f.v6 {
		etype = wire.EtherIPv6
	}
	var h ipHdr
	if !parseIP(data, q, etype, &h) || h.bogus || h.l4 < 0 || h.proto != 17 || h.frag && !h.firstFrag || !inRange(data, h.l4, 8) {
		return
	}
	tun := wire.TunnelOf(be16(data, h.l4), be16(data, h.l4+2), ports)
	if tun != wire.TunnelVXLAN && tun != wire.TunnelGeneve {
		return
	}
	t := &f.tooBig
	*t = tooBigRef{ok: true, mtu: mtu, src: h.src, dst: h.dst, tun: tun, size: h.total}
	p := h.l4 + 8
	switch {
	case tun == wire.TunnelVXLAN && inRange(data, p, 8) && data[p]&0x08 != 0,
		tun == wire.TunnelGeneve && inRange(data, p, 8) && data[p]>>6 == 0:
		t.vni, t.hasVNI = be32(data, p+4)>>8, true
	}
}

// tooBigKey groups the ICMP errors: one VTEP pair, one announced MTU.
type tooBigKey struct {
	src, dst [16]byte
	mtu      uint32
}

// tooBigStat is what the errors of one key showed.
type tooBigStat struct {
	packets   int64
	routers   []netip.Addr // the first few
	tunnels   uint8        // bit 1<<tun of each tunnel kind quoted
	vnis      []uint32     // the first few
	largest   int          // the largest quoted packet
	firstNano int64
}

// Bounds: the (VTEP pair, MTU) groups kept, and the routers and VNIs
// named per group. Past them the errors are counted, not told apart.
const (
	maxTooBig        = 4096
	maxTooBigDetails = 4
)

// tooBigPacket counts an underlay ICMP error about a tunnel packet.
func (a *Analyzer) tooBigPacket(p *Packet) {
	t := &a.f.tooBig
	k := tooBigKey{t.src, t.dst, t.mtu}
	s, ok := a.tooBig[k]
	if !ok {
		if len(a.tooBig) >= maxTooBig {
			a.tooBigOther++
			return
		}
		s = &tooBigStat{firstNano: p.Time.UnixNano()}
		if a.tooBig == nil {
			a.tooBig = map[tooBigKey]*tooBigStat{}
		}
		a.tooBig[k] = s
		a.tooBigOrder = append(a.tooBigOrder, k)
	}
	s.packets++
	s.tunnels |= 1 << t.tun
	s.largest = max(s.largest, t.size)
	if r := addrOf(a.f.src); len(s.routers) < maxTooBigDetails && !slices.Contains(s.routers, r) {
		s.routers = append(s.routers, r)
	}
	if t.hasVNI && len(s.vnis) < maxTooBigDetails && !slices.Contains(s.vnis, t.vni) {
		s.vnis = append(s.vnis, t.vni)
	}
}

// cap10 reports, per VTEP pair, the MTUs routers announced for its tunnel
// packets and the pod MTU that fits them.
func (a *Analyzer) cap10(add func(string, issue)) {
	type pair struct{ src, dst [16]byte }
	var order []pair
	byPair := map[pair][]tooBigKey{}
	for _, k := range a.tooBigOrder {
		pk := pair{k.src, k.dst}
		if _, seen := byPair[pk]; !seen {
			order = append(order, pk)
		}
		byPair[pk] = append(byPair[pk], k)
	}
	for _, pk := range order {
		keys := byPair[pk]
		src, dst := addrOf(pk.src), addrOf(pk.dst)
		var ev []finding.Evidence
		var total int64
		var kinds uint8
		var routers []string
		smallest := uint32(0)
		for _, k := range keys {
			s := a.tooBig[k]
			total += s.packets
			kinds |= s.tunnels
			for _, r := range s.routers {
				if !slices.Contains(routers, r.String()) {
					routers = append(routers, r.String())
				}
			}
			if k.mtu > 0 && (smallest == 0 || k.mtu < smallest) {
				smallest = k.mtu
			}
			mtu := "not given (a router older than RFC 1191)"
			if k.mtu > 0 {
				mtu = strconv.FormatUint(uint64(k.mtu), 10)
			}
			note := fmt.Sprintf("%d ICMP %s from %s", s.packets, nounFor(s.packets, "error", "errors"), joinAddrs(s.routers))
			if len(s.vnis) > 0 {
				note += "; VNI " + joinVNIs(s.vnis)
			}
			ev = append(ev, finding.Evidence{Object: "VTEP pair " + src.String() + " → " + dst.String(), Field: "next-hop MTU announced by the router",
				Value: mtu, Expected: fmt.Sprintf("≥ %d (the largest tunnel packet quoted)", s.largest), Note: note})
		}
		what := tunnelKinds(kinds)
		summary := fmt.Sprintf("Routers on the underlay (%s) dropped %s packets from VTEP %s to %s as too big: %d ICMP %s",
			strings.Join(routers, ", "), what, src, dst, total, tooBigWords(src.Is6()))
		if overhead := tunnelOverhead(src); int(smallest)-overhead >= 68 { // RFC 791's minimum MTU
			plus := ""
			if kinds&(1<<wire.TunnelGeneve) != 0 {
				plus = " plus Geneve options"
			}
			summary += fmt.Sprintf(", path MTU %d: pods on these nodes need an MTU of at most %d (%s over IPv%d adds %d bytes%s)",
				smallest, int(smallest)-overhead, what, ipVersion(src), overhead, plus)
		}
		add("CAP-10", issue{summary: summary, evidence: ev, subjects: []string{"address:" + src.String(), "address:" + dst.String()}})
	}
}

// tunnelOverhead is what VXLAN adds to the inner packet: the outer IP
// header, UDP, VXLAN and the inner Ethernet header (Linux VXLAN_HEADROOM,
// VXLAN6_HEADROOM).
func tunnelOverhead(src netip.Addr) int {
	if src.Is6() {
		return 40 + 8 + 8 + 14
	}
	return 20 + 8 + 8 + 14
}

// nounFor is the noun's form for a count of n.
func nounFor(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func tooBigWords(v6 bool) string {
	if v6 {
		return "\"packet too big\""
	}
	return "\"fragmentation needed\""
}

func ipVersion(a netip.Addr) int {
	if a.Is6() {
		return 6
	}
	return 4
}

func tunnelKinds(kinds uint8) string {
	switch kinds {
	case 1 << wire.TunnelVXLAN:
		return "VXLAN"
	case 1 << wire.TunnelGeneve:
		return "Geneve"
	}
	return "VXLAN and Geneve"
}

func joinAddrs(as []netip.Addr) string {
	var out []string
	for _, a := range as {
		out = append(out, a.String())
	}
	return strings.Join(out, ", ")
}

func joinVNIs(vs []uint32) string {
	var out []string
	for _, v := range vs {
		out = append(out, strconv.FormatUint(uint64(v), 10))
	}
	return strings.Join(out, ", ")
}
