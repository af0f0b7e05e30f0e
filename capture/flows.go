package capture

import (
	"encoding/binary"
	"hash/maphash"
	"net/netip"
	"time"

	"github.com/wincni/diag/capture/wire"
)

// flowKey is a flow in either direction: the lower address and port first.
type flowKey struct {
	a, b         [16]byte
	aPort, bPort uint16
	vni          uint32
	proto        uint8
}

// fastKey is the key of IPv4 tunnels and flows: two words hash and compare
// much faster than the 40-byte general key, and IPv4 is the common case.
type fastKey [2]uint64

var protoNames = map[uint8]string{wire.IPProtoICMP: "icmp", wire.IPProtoTCP: "tcp", wire.IPProtoUDP: "udp", wire.IPProtoICMPv6: "icmpv6"}

// flowPacket updates the inner flow and its TCP state.
func (a *Analyzer) flowPacket(p *Packet, f *frame, t *Tunnel) {
	fl, forward := a.flowFor(f)
	now := p.Time.UnixNano()
	if fl == nil {
		if len(a.flowOrder) >= a.lim.MaxFlows {
			a.untrackedFlow(p, f)
			return
		}
		fl = &Flow{VNI: f.vni, Proto: protoNames[f.innerProto], Src: addrOf(f.innerSrc), Dst: addrOf(f.innerDst),
			SrcPort: f.innerSport, DstPort: f.innerDport, TunnelSrc: addrOf(f.src), TunnelDst: addrOf(f.dst), First: p.Time, encapsulated: true,
			openerFwd: forward}
		if fl.Proto == "" {
			fl.Proto = "ip"
		}
		a.storeFlow(f, fl)
		a.flowOrder = append(a.flowOrder, fl)
		if n := len(a.flowOrder); n%FlowsGrewEvery == 0 && a.opts.FlowsGrew != nil {
			a.opts.FlowsGrew(n)
		}
	}
	// Every frame counts, as tshark counts them, so that flows and tunnels
	// agree. A copy of the same packet (pktmon logs a packet at every
	// component it crosses) counts once for TCP state: same pcapng packet
	// id (pktmon PktGroupId), or without ids the same bytes on another
	// interface within copyWindow. Nothing else is a copy: IP ID 0 and
	// IPv6 (no ID) say nothing.
	fl.Packets++
	fl.Bytes += int64(p.Length)
	var fp uint64
	if !a.oneIface {
		fp = fingerprint(p.Data, f)
	}
	dup := false
	if d := now - fl.lastNano; d < copyWindow && d > -copyWindow {
		if p.PacketID != 0 {
			dup = p.PacketID == fl.lastPacketID
		} else {
			dup = fl.lastPacketID == 0 && fp != 0 && fp == fl.lastFP && int32(p.Interface) != fl.lastIface && fl.lastT == t
		}
	}
	fl.lastFP, fl.lastPacketID, fl.lastNano, fl.lastT, fl.lastIface = fp, p.PacketID, now, t, int32(p.Interface)
	if dup {
		a.res.Duplicates++
		return
	}
	if f.innerProto != 6 {
		return
	}
	fromOpener := forward == fl.openerFwd
	switch {
	case f.innerFlags&tcpRST != 0:
		fl.rsts++
		t.rst++
	case f.innerFlags&(tcpSYN|tcpACK) == tcpSYN && fromOpener:
		// A SYN again: a retransmission unless it is the same one (the
		// IP ID changes between retransmissions on every stack we know).
		if fl.syns == 0 || f.innerID != fl.lastSYNID || now-fl.lastSYN > int64(200*time.Millisecond) {
			fl.syns++
		}
		fl.lastSYN, fl.lastSYNID = now, f.innerID
	case f.innerFlags&(tcpSYN|tcpACK) == tcpSYN|tcpACK && !fromOpener:
		fl.synAcks++
	case f.innerFlags&tcpFIN != 0:
		fl.fins++
	}
}

// copyWindow is how far apart in time two copies of one packet can be.
const copyWindow = int64(5 * time.Millisecond)

var fpSeed = maphash.MakeSeed()

// fingerprint identifies an inner packet by its IP header and the first
// 20 bytes of its transport header (ports, sequence numbers, flags, the
// checksum over the whole payload); 0 when they were not captured.
func fingerprint(data []byte, f *frame) uint64 {
	if f.fpEnd <= f.fpStart || !inRange(data, f.fpStart, f.fpEnd-f.fpStart) {
		return 0
	}
	return maphash.Bytes(fpSeed, data[f.fpStart:f.fpEnd]) | 1
}

// untrackedFlow counts a packet of a flow past Limits.MaxFlows.
func (a *Analyzer) untrackedFlow(p *Packet, f *frame) {
	u := &a.otherFlows
	u.Packets++
	u.Bytes += int64(p.Length)
	if f.innerProto == wire.IPProtoTCP {
		switch {
		case f.innerFlags&tcpRST != 0:
			u.Resets++
		case f.innerFlags&(tcpSYN|tcpACK) == tcpSYN:
			u.SYNs++
		}
	}
	o := &a.flowOver
	var k [40]byte
	copy(k[:], f.innerSrc[:])
	copy(k[16:], f.innerDst[:])
	binary.LittleEndian.PutUint16(k[32:], f.innerSport)
	binary.LittleEndian.PutUint16(k[34:], f.innerDport)
	binary.LittleEndian.PutUint32(k[36:], f.vni<<8|uint32(f.innerProto))
	if !less(f.innerSrc, f.innerSport, f.innerDst, f.innerDport) {
		copy(k[:], f.innerDst[:])
		copy(k[16:], f.innerSrc[:])
		binary.LittleEndian.PutUint16(k[32:], f.innerDport)
		binary.LittleEndian.PutUint16(k[34:], f.innerSport)
	}
	o.hll.add(o.hash(k[:]))
	if a.opts.Context == nil || len(a.opts.Context.PodPrefixes) == 0 {
		for _, ad := range [2][16]byte{f.innerSrc, f.innerDst} {
			p, ok := podPrefixOf(addrOf(ad))
			if _, seen := a.otherPrefixes[p]; !ok || seen {
				continue
			}
			if a.otherPrefixes == nil {
				a.otherPrefixes = map[netip.Prefix]struct{}{}
			}
			if len(a.otherPrefixes) >= maxOtherPrefixes {
				a.prefixesCut = true
				continue
			}
			a.otherPrefixes[p] = struct{}{}
		}
	}
	o.bloomAdd(o.pairHash(f.innerSrc, f.innerSport, f.innerDst, f.innerDport))
}

// flowFor finds the flow of the inner packet; forward says whether the
// packet goes from the lower to the higher end of the key.
func (a *Analyzer) flowFor(f *frame) (*Flow, bool) {
	if !f.innerV6 {
		k, fwd := fastFlowKey(f)
		return a.fastF.get(k), fwd
	}
	k, fwd := canonical(f.innerSrc, f.innerDst, f.innerSport, f.innerDport, f.vni, f.innerProto)
	return a.flows[k], fwd
}

func (a *Analyzer) storeFlow(f *frame, fl *Flow) {
	if !f.innerV6 {
		k, _ := fastFlowKey(f)
		a.fastF.put(k, fl)
		return
	}
	k, _ := canonical(f.innerSrc, f.innerDst, f.innerSport, f.innerDport, f.vni, f.innerProto)
	a.flows[k] = fl
}

// mix spreads a key over 64 bits for the tables' indexes (the top bits).
func mix(k fastKey) uint64 {
	h := (k[0] ^ k[1]*0x9E3779B97F4A7C15) * 0xBF58476D1CE4E5B9
	return h ^ h>>31
}

func fastFlowKey(f *frame) (fastKey, bool) {
	s := uint64(binary.BigEndian.Uint32(f.innerSrc[12:]))<<16 | uint64(f.innerSport)
	d := uint64(binary.BigEndian.Uint32(f.innerDst[12:]))<<16 | uint64(f.innerDport)
	lo, hi := min(s, d), max(s, d)
	return fastKey{lo<<16 ^ hi>>32, hi<<32 | uint64(f.vni)<<8 | uint64(f.innerProto)}, s < d
}

// canonical orders the two ends so that both directions share a key; it
// reports whether the packet goes in the key's direction.
func canonical(src, dst [16]byte, sport, dport uint16, vni uint32, proto uint8) (flowKey, bool) {
	if less(src, sport, dst, dport) {
		return flowKey{src, dst, sport, dport, vni, proto}, true
	}
	return flowKey{dst, src, dport, sport, vni, proto}, false
}

func less(a [16]byte, ap uint16, b [16]byte, bp uint16) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return ap < bp
}
