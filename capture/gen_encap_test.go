package capture

import (
	"encoding/binary"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// Generators of the encapsulations around the tunnels: Geneve carrying IP
// without Ethernet, 802.3 LLC/SNAP frames, GRE/ERSPAN mirrors and the
// ICMP errors routers send about tunnel packets.

// geneveProto is a Geneve header (one 8-byte option) whose protocol type
// is pt: 0x6558 for Ethernet, 0x0800 for IPv4, 0x86DD for IPv6.
func geneveProto(vni uint32, pt uint16, payload []byte) []byte {
	h := geneve(vni, nil)
	binary.BigEndian.PutUint16(h[2:], pt)
	return append(h, payload...)
}

// ipOf is the IP packet of an Ethernet II frame.
func ipOf(frame []byte) []byte { return append([]byte(nil), frame[14:]...) }

// snapFrame rewrites an Ethernet II frame as IEEE 802.3 with an LLC/SNAP
// header (OUI 00-00-00) carrying the same EtherType.
func snapFrame(frame []byte) []byte {
	payload := frame[14:]
	out := append([]byte(nil), frame[:12]...)
	out = binary.BigEndian.AppendUint16(out, uint16(8+len(payload)))
	out = append(out, 0xaa, 0xaa, 0x03, 0, 0, 0, frame[12], frame[13])
	return append(out, payload...)
}

// erspanII is an ERSPAN type II mirror of a frame in GRE (sequence number
// present) from src to dst.
func erspanII(src, dst string, seq uint32, mirrored []byte) []byte {
	n := l3(src, dst, layers.IPProtocolGRE, uint16(seq))
	gre := &layers.GRE{SeqPresent: true, Seq: seq, Protocol: layers.EthernetType(0x88BE)}
	// Version 1, VLAN 0; CoS 0, session 1; index 0.
	hdr := []byte{0x10, 0x00, 0x00, 0x01, 0, 0, 0, 0}
	return ser(&layers.Ethernet{SrcMAC: macA, DstMAC: macB, EthernetType: etherType(n)}, n.(gopacket.SerializableLayer), gre,
		gopacket.Payload(append(hdr, mirrored...)))
}

// greBridged is a frame in GRE with transparent Ethernet bridging (0x6558).
func greBridged(src, dst string, frame []byte) []byte {
	n := l3(src, dst, layers.IPProtocolGRE, 0x4747)
	return ser(&layers.Ethernet{SrcMAC: macA, DstMAC: macB, EthernetType: etherType(n)}, n.(gopacket.SerializableLayer),
		&layers.GRE{Protocol: layers.EthernetTypeTransparentEthernetBridging}, gopacket.Payload(frame))
}

// tooBig is the ICMP error a router at router sends to the source of the
// IP packet of frame (from its Ethernet header on) when the packet does
// not fit the next hop's MTU: IPv4 "fragmentation needed" with the
// next-hop MTU (RFC 1191), or ICMPv6 "packet too big" (RFC 4443), quoting
// as much of the packet as a router does (576 bytes of ICMPv4 in all,
// RFC 1812; 1280 bytes of ICMPv6).
func tooBig(router string, mtu uint32, frame []byte) []byte {
	pkt := frame[14:]
	var src [16]byte
	v6 := pkt[0]>>4 == 6
	if v6 {
		copy(src[:], pkt[8:24])
	} else {
		copy(src[:4], pkt[12:16])
	}
	if !v6 {
		quote := pkt[:min(len(pkt), 576-20-8)]
		n := l3(router, addrOf(src4(src)).String(), layers.IPProtocolICMPv4, 0x0d0d)
		ic := &layers.ICMPv4{TypeCode: layers.CreateICMPv4TypeCode(layers.ICMPv4TypeDestinationUnreachable, layers.ICMPv4CodeFragmentationNeeded), Seq: uint16(mtu)}
		return ser(&layers.Ethernet{SrcMAC: macB, DstMAC: macA, EthernetType: layers.EthernetTypeIPv4}, n.(gopacket.SerializableLayer), ic, gopacket.Payload(quote))
	}
	quote := pkt[:min(len(pkt), 1280-40-8)]
	n := &layers.IPv6{Version: 6, HopLimit: 64, NextHeader: layers.IPProtocolICMPv6, SrcIP: ip(router), DstIP: src[:]}
	ic := &layers.ICMPv6{TypeCode: layers.CreateICMPv6TypeCode(layers.ICMPv6TypePacketTooBig, 0)}
	ic.SetNetworkLayerForChecksum(n)
	body := binary.BigEndian.AppendUint32(nil, mtu)
	return ser(&layers.Ethernet{SrcMAC: macB, DstMAC: macA, EthernetType: layers.EthernetTypeIPv6}, n, ic, gopacket.Payload(append(body, quote...)))
}

// src4 turns the first four bytes of b into an IPv4-mapped address.
func src4(b [16]byte) [16]byte {
	var out [16]byte
	out[10], out[11] = 0xff, 0xff
	copy(out[12:], b[:4])
	return out
}
