package capture

import (
	"encoding/binary"
	"net/netip"

	"github.com/wincni/diag/capture/wire"
)

func addrOf(b [16]byte) netip.Addr { return netip.AddrFrom16(b).Unmap() }

// Add analyzes one packet.
func (a *Analyzer) Add(p *Packet) {
	f := &a.f
	decode(f, p.Data, p.Length, p.LinkType, &a.ports)
	// Counted once decoded: a packet of a mapped file cut under the
	// analysis faults in decode, and is not one the file holds.
	a.res.Packets++
	if f.truncated {
		a.res.Truncated++
	}
	switch f.kind {
	case kindVXLAN:
	case kindPlain:
		if f.tooBig.ok {
			a.tooBigPacket(p)
		}
		a.plainPacket(p)
		return
	case kindGRE:
		a.res.GRE++
		return
	case kindGeneve:
		a.res.Geneve++
		return
	case kindGPE:
		a.res.GPE++
		return
	case kindMalformed:
		a.res.Malformed++
		a.mal[f.malformed]++
		return
	case kindFragment:
		a.res.OuterFragments++
		// A later fragment of an outer packet: counted on the tunnel of its
		// first fragment when it is VXLAN; the bytes are not decodable.
		if f.proto == wire.IPProtoUDP {
			if t := a.tunnelFor(&f.src, &f.dst, 0, false); t != nil {
				t.fragments++
			}
		}
		return
	case kindOther:
		if len(p.Data) > 0 && !knownLinkType(p) {
			a.res.OtherLinkTypes++
		}
		return
	}

	a.res.VXLANPackets++
	if f.geneve {
		a.res.Geneve++
	}
	t := a.countTunnel(&f.src, &f.dst, f.vni, p)
	// The flow belongs to the innermost tunnel; every VXLAN layer counts
	// the packet on its own tunnel (tshark shows each layer's VNI).
	ft := t
	if f.nestedN > 0 {
		a.res.Nested++
		for i := range f.nestedT[:f.nestedN] {
			n := &f.nestedT[i]
			ft = a.countTunnel(&n.src, &n.dst, n.vni, p)
		}
		n := f.nestedT[f.nestedN-1]
		f.src, f.dst, f.vni = n.src, n.dst, n.vni // the flow's tunnel
	}
	if f.fragment {
		t.fragments++
	}
	a.maybeVerifyL4(ft, p.Data)
	mal := f.malformed
	if f.innerBeyond {
		// An inner length beyond the frame: a super-packet captured before
		// segmentation when the outer frame is larger than the MTU allows,
		// else a malformed packet.
		if mtu := a.mtu(); f.ipLen == 0 || f.ipLen > mtu {
			f.offloadArtefact = true
		} else {
			mal = malformedInnerLength
		}
	}
	if mal != malformedNone {
		a.res.Malformed++
		a.mal[mal]++
	}
	if f.unverified {
		a.res.Unverified++
	}
	if f.oddFlags {
		a.res.OddFlags++
	}
	if f.offloadArtefact {
		t.offload++
	} else if a.opts.MTU > 0 && f.ipLen > a.opts.MTU && !f.fragment {
		t.oversize++
	}
	if f.badIPChecksum || f.badL4Checksum {
		ft.badChecksum++
	}
	if c := a.opts.Context; c != nil && f.inner {
		a.checkInnerMAC(ft, f)
	}
	if !f.innerIP {
		return
	}
	switch f.innerProto {
	case wire.IPProtoICMP:
		if f.icmpType == 3 {
			ft.icmpUnreach++
			if f.icmpCode == 4 {
				ft.icmpFragNeeded++
			}
		}
	case wire.IPProtoICMPv6:
		if f.icmpType == 1 {
			ft.icmpUnreach++
		} else if f.icmpType == 2 {
			ft.icmpFragNeeded++
		}
	}
	a.flowPacket(p, f, ft)
}

// mtu is the underlay MTU: --mtu, else Ethernet's 1500.
func (a *Analyzer) mtu() int {
	if a.opts.MTU > 0 {
		return a.opts.MTU
	}
	return 1500
}

// countTunnel counts a VXLAN packet on its tunnel. The addresses come by
// pointer, not as two 16-byte arrays copied per call.
func (a *Analyzer) countTunnel(src, dst *[16]byte, vni uint32, p *Packet) *Tunnel {
	t := a.tunnelFor(src, dst, vni, true)
	if t == a.otherT {
		a.otherTunnels.Packets++
		a.otherTunnels.Bytes += int64(p.Length)
	}
	t.Packets++
	t.Bytes += int64(p.Length)
	return t
}

func knownLinkType(p *Packet) bool {
	_, _, ok := linkLayer(p.Data, p.LinkType)
	return ok
}

func (a *Analyzer) tunnelFor(src, dst *[16]byte, vni uint32, create bool) *Tunnel {
	var fk fastKey
	fast := isV4(src) && isV4(dst)
	if fast {
		fk = fastKey{v4(src)<<32 | v4(dst), uint64(vni)}
		slot := &a.tcache[mix(fk)>>58]
		if slot.t != nil && slot.k == fk {
			return slot.t
		}
		if t, ok := a.fastT[fk]; ok {
			slot.k, slot.t = fk, t
			return t
		}
	} else {
		k := tunnelKey{*src, *dst, vni}
		if a.lastT != nil && a.lastTK == k {
			return a.lastT
		}
		if t, ok := a.tunnels[k]; ok {
			a.lastT, a.lastTK = t, k
			return t
		}
	}
	if !create {
		// A later fragment carries no VNI: attach it to the first tunnel
		// between the two addresses.
		return a.pairT[[2]netip.Addr{addrOf(*src), addrOf(*dst)}]
	}
	if len(a.tunnelOrder) >= a.lim.MaxTunnels {
		// Bounded: the packets of further tunnels are counted together.
		var k [36]byte
		copy(k[:], src[:])
		copy(k[16:], dst[:])
		binary.LittleEndian.PutUint32(k[32:], vni)
		a.tunOver.hll.add(a.tunOver.hash(k[:]))
		if a.otherT == nil {
			a.otherT = &Tunnel{}
		}
		return a.otherT
	}
	t := &Tunnel{Src: addrOf(*src), Dst: addrOf(*dst), VNI: vni}
	if pk := [2]netip.Addr{t.Src, t.Dst}; a.pairT[pk] == nil {
		a.pairT[pk] = t
	}
	if fast {
		a.fastT[fk] = t
	} else {
		a.tunnels[tunnelKey{*src, *dst, vni}] = t
	}
	a.tunnelOrder = append(a.tunnelOrder, t)
	return t
}

// The inner transport checksum of a large segment costs as much as the rest
// of the analysis together. Every small packet is verified; of the large
// ones, the first verifyAllLarge of each tunnel and then one in
// verifyLargeEvery: corruption on an underlay hits many packets.
const (
	smallPacket      = 512
	verifyAllLarge   = 256
	verifyLargeEvery = 8
)

func (a *Analyzer) maybeVerifyL4(t *Tunnel, data []byte) {
	f := &a.f
	if f.l4Off == 0 {
		return
	}
	if f.innerLen > smallPacket {
		t.largeSeen++
		if t.largeSeen > verifyAllLarge && t.largeSeen%verifyLargeEvery != 0 {
			return
		}
	}
	t.checked++
	f.verifyL4(data)
}

// plainPacket keeps unencapsulated traffic that could be pod traffic (CAP-01).
func (a *Analyzer) plainPacket(p *Packet) {
	f := &a.f
	if f.proto != 6 && f.proto != 17 && f.proto != 1 {
		return
	}
	k, _ := canonical(f.src, f.dst, f.sport, f.dport, 0, f.proto)
	fl, ok := a.plain[k]
	if !ok {
		if len(a.plain) >= 100000 {
			return // bounded: CAP-01 needs examples, not every flow
		}
		fl = &Flow{Proto: protoNames[f.proto], Src: addrOf(f.src), Dst: addrOf(f.dst), SrcPort: f.sport, DstPort: f.dport, First: p.Time}
		a.plain[k] = fl
	}
	fl.Packets++
	fl.Bytes += int64(p.Length)
	fl.lastNano = p.Time.UnixNano()
}

// checkInnerMAC compares the inner destination MAC with the DR MAC the
// bundle says the destination VTEP has (CAP-07).
func (a *Analyzer) checkInnerMAC(t *Tunnel, f *frame) {
	want, ok := a.opts.Context.expectedMAC(addrOf(f.dst), f.innerDstMAC)
	if ok || want == "" {
		return
	}
	if t.wrongMAC == nil {
		t.wrongMAC = map[[6]byte]int64{}
	}
	if _, seen := t.wrongMAC[f.innerDstMAC]; !seen && len(t.wrongMAC) >= maxWrongMACs {
		t.wrongMACOther++ // bounded: a few MACs make the point
		return
	}
	t.wrongMAC[f.innerDstMAC]++
}

// maxWrongMACs bounds the wrong inner MACs kept per tunnel.
const maxWrongMACs = 64
