package capture

import (
	"encoding/binary"
	"errors"
	"hash/maphash"
	"io"
	"net/netip"
	"runtime"
	"runtime/debug"
	"time"
)

// Options tune the analysis.
type Options struct {
	VXLANPorts  []uint16 // default 4789
	ExpectedVNI uint32   // CAP-03; 0 means unknown
	MTU         int      // underlay MTU for CAP-05; 0 means unknown
	Context     *Context // a bundle's view of the cluster, for CAP-01/04/07
	Limits      Limits   // what one analysis may hold; zero fields take the defaults
	// FlowsGrew, when set, is called each time the tracked flows reach
	// another multiple of FlowsGrewEvery, with their number: memory grows
	// with flows, not packets, and the caller can scale its GC limit.
	FlowsGrew func(flows int)
}

// FlowsGrewEvery is how often Options.FlowsGrew is called.
const FlowsGrewEvery = 8192

// Tunnel is one (outer source, outer destination, VNI).
type Tunnel struct {
	Src     netip.Addr `json:"src"`
	Dst     netip.Addr `json:"dst"`
	VNI     uint32     `json:"vni"`
	Packets int64      `json:"packets"`
	Bytes   int64      `json:"bytes"`

	fragments, oversize, badChecksum, offload, rst, icmpUnreach, icmpFragNeeded int64
	largeSeen, checked                                                          int64
	wrongMAC                                                                    map[[6]byte]int64
	wrongMACOther                                                               int64
}

// Flow is one inner conversation inside the overlay.
type Flow struct {
	// Per-packet state first, in a few cache lines: with thousands of
	// concurrent flows every packet touches a flow that is cold.
	Packets      int64  `json:"packets"`
	Bytes        int64  `json:"bytes"`
	lastFP       uint64 // the last packet, to recognise its copies: fingerprint
	lastPacketID uint64 // pcapng packet id (pktmon PktGroupId)
	lastIDNano   int64
	lastT        *Tunnel
	lastIface    int32
	lastNano     int64
	lastSYN      int64
	syns         int32
	synAcks      int32
	rsts         int32
	fins         int32
	lastSYNID    uint16
	openerFwd    bool // the opener is the lower end of the flow key
	encapsulated bool

	VNI       uint32     `json:"vni"`
	Proto     string     `json:"proto"`
	Src       netip.Addr `json:"src"` // the side that spoke first
	SrcPort   uint16     `json:"srcPort,omitempty"`
	Dst       netip.Addr `json:"dst"`
	DstPort   uint16     `json:"dstPort,omitempty"`
	State     string     `json:"state,omitempty"` // TCP: syn-sent, established, reset, closed, ...
	TunnelSrc netip.Addr `json:"tunnelSrc"`       // outer addresses of the first packet
	TunnelDst netip.Addr `json:"tunnelDst"`
	First     time.Time  `json:"first"`
	Last      time.Time  `json:"last"`
}

type flowKey struct {
	a, b         [16]byte
	aPort, bPort uint16
	vni          uint32
	proto        uint8
}

type tunnelKey struct {
	src, dst [16]byte
	vni      uint32
}

// fastKey is the key of IPv4 tunnels and flows: two words hash and compare
// much faster than the 40-byte general key, and IPv4 is the common case.
type fastKey [2]uint64

func v4(b *[16]byte) uint64 { return uint64(binary.BigEndian.Uint32(b[12:])) }

// isV4 says whether b is an IPv4-mapped address (::ffff:a.b.c.d): two
// word loads, not twelve byte loads.
func isV4(b *[16]byte) bool {
	return binary.LittleEndian.Uint64(b[:8]) == 0 && binary.LittleEndian.Uint32(b[8:12]) == 0xffff0000
}

// Result is what a capture showed.
type Result struct {
	Files          []FileSummary `json:"files"`
	Packets        int64         `json:"packets"`
	VXLANPackets   int64         `json:"vxlanPackets"`
	Truncated      int64         `json:"truncated"`
	Duplicates     int64         `json:"duplicates"`
	Geneve         int64         `json:"geneve,omitempty"` // frames with a Geneve layer (a whole header), with VXLAN inside or not
	GPE            int64         `json:"vxlanGPE,omitempty"`
	Nested         int64         `json:"nestedVXLAN,omitempty"`         // VXLAN frames with VXLAN inside
	Malformed      int64         `json:"malformed,omitempty"`           // CAP-08: not VXLAN, or a malformed inner packet
	OddFlags       int64         `json:"vxlanReservedBits,omitempty"`   // VXLAN with flag or reserved bits beyond I set
	OuterFragments int64         `json:"outerFragments,omitempty"`      // later IP fragments, undecodable
	Unverified     int64         `json:"checksumsUnverified,omitempty"` // VXLAN packets cut before the inner packet's end
	OtherLinkTypes int64         `json:"undecodedLinkTypes,omitempty"`
	GRE            int64         `json:"gre,omitempty"` // GRE packets (ERSPAN mirrors, GRE tunnels): not decoded
	Tunnels        []*Tunnel     `json:"tunnels"`
	Flows          []*Flow       `json:"flows"`
	// Past Limits.MaxFlows and MaxTunnels: counted, not tracked one by one.
	UntrackedFlows   *UntrackedFlows   `json:"untrackedFlows,omitempty"`
	UntrackedTunnels *UntrackedTunnels `json:"untrackedTunnels,omitempty"`
	ETL              []*ETLFile        `json:"etl,omitempty"` // one per pktmon ETL file (etlreport.go)
}

// FileSummary is one capture file read.
type FileSummary struct {
	Path    string `json:"path"`
	Format  string `json:"format"`
	Packets int64  `json:"packets"`
	// Skipped over a limit (see the report's notes).
	SkippedPackets    int64 `json:"skippedPackets,omitempty"`
	SkippedInterfaces int64 `json:"skippedInterfaces,omitempty"`
}

// Analyzer accumulates state over any number of capture files.
type Analyzer struct {
	opts    Options
	ports   portSet
	f       frame
	res     Result
	tunnels map[tunnelKey]*Tunnel
	flows   map[flowKey]*Flow
	fastT   map[fastKey]*Tunnel
	fastF   map[fastKey]*Flow
	// Direct-mapped caches in front of the maps: most packets belong to a
	// tunnel and a flow seen moments ago.
	tcache [64]struct {
		k fastKey
		t *Tunnel
	}
	fcache [1 << fcacheBits]struct {
		k  fastKey
		fl *Flow
	}
	plain       map[flowKey]*Flow // unencapsulated pod-like traffic, for CAP-01
	lastT       *Tunnel
	lastTK      tunnelKey
	mal         map[uint8]int64
	vnis        map[uint32]int64
	tunnelOrder []*Tunnel
	flowOrder   []*Flow
	pairT       map[[2]netip.Addr]*Tunnel // the first tunnel between two addresses (fragments)
	oneIface    bool                      // the source has one interface (classic pcap): no copies to find

	lim               Limits
	limitNotes        []string
	otherFlows        UntrackedFlows
	otherTunnels      UntrackedTunnels
	otherT            *Tunnel // stands for every untracked tunnel
	flowOver, tunOver overflow
	otherPrefixes     map[netip.Prefix]struct{} // pod subnets seen only in untracked flows
	prefixesCut       bool                      // more of those than maxOtherPrefixes

	// Underlay ICMP errors about tunnel packets too big (CAP-10).
	tooBig      map[tooBigKey]*tooBigStat
	tooBigOrder []tooBigKey
	tooBigOther int64
}

// maxOtherPrefixes bounds the pod subnets (/24, /64) kept from untracked
// flows, for CAP-01 and NAT-04.
const maxOtherPrefixes = 65536

// NewAnalyzer prepares an analysis.
func NewAnalyzer(opts Options) *Analyzer {
	a := &Analyzer{opts: opts, tunnels: map[tunnelKey]*Tunnel{}, flows: map[flowKey]*Flow{},
		fastT: map[fastKey]*Tunnel{}, fastF: map[fastKey]*Flow{},
		plain: map[flowKey]*Flow{}, mal: map[uint8]int64{}, vnis: map[uint32]int64{}, pairT: map[[2]netip.Addr]*Tunnel{},
		lim: opts.Limits.withDefaults(), flowOver: overflow{seed: maphash.MakeSeed()}, tunOver: overflow{seed: maphash.MakeSeed()}}
	if len(opts.VXLANPorts) == 0 {
		a.ports.add(4789)
	}
	for _, p := range opts.VXLANPorts {
		a.ports.add(p)
	}
	return a
}

// ReadFile analyzes every packet of a capture file.
func (a *Analyzer) ReadFile(path string) error {
	src, err := OpenLimits(path, a.opts.Limits)
	if err != nil {
		return err
	}
	defer src.Close()
	return a.ReadSource(src, path)
}

// ReadSource analyzes every packet of a source. With more than one CPU,
// reading (I/O and pcap framing) and analysis run as a two-stage pipeline
// over batches of copied packets; the order of packets is kept.
func (a *Analyzer) ReadSource(src *Source, name string) error {
	fs := FileSummary{Path: name, Format: src.Format}
	// A classic pcap holds one interface: none of its packets is a copy
	// by the rule of flowPacket (another interface), so none needs a
	// fingerprint. (A flow's first packet in a later file is then not
	// compared with its last one in this file.)
	a.oneIface = src.Format == "pcap"
	defer func() { a.oneIface = false }()
	var err error
	if runtime.GOMAXPROCS(0) > 1 {
		fs.Packets, err = a.readPipelined(src)
	} else {
		fs.Packets, err = a.readSerial(src)
	}
	fs.SkippedPackets = src.skips.packets + src.skips.ifacePackets
	fs.SkippedInterfaces = src.skips.ifaces
	a.res.Files = append(a.res.Files, fs)
	a.limitNotes = append(a.limitNotes, src.Notes()...)
	if src.etl != nil {
		a.res.ETL = append(a.res.ETL, src.etl.report(name))
	}
	return err
}

func (a *Analyzer) readSerial(src *Source) (n int64, err error) {
	if src.isMapped() {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer src.recoverFault() // n counts the packets before the cut
	}
	var p Packet
	for {
		err := src.Next(&p)
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
		a.Add(&p)
	}
}

// addBatch analyzes a batch; false when a mapped file faulted under it.
func (a *Analyzer) addBatch(src *Source, b *batch) (ok bool) {
	if src.isMapped() {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer src.recoverFault() // ok stays false
	}
	for i := range b.pkts {
		a.Add(&b.pkts[i])
	}
	return true
}

// batch is a run of packets whose bytes were copied into one slab.
type batch struct {
	pkts   []Packet
	slab   []byte
	err    error
	mapEnd int64 // a mapped file: the offset its packets end at
}

const (
	batchPackets = 512
	batchSlab    = 1 << 20
)

func (a *Analyzer) readPipelined(src *Source) (int64, error) {
	full := make(chan *batch, 4)
	free := make(chan *batch, 6)
	for i := 0; i < 6; i++ {
		free <- &batch{pkts: make([]Packet, 0, batchPackets), slab: make([]byte, 0, batchSlab)}
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		defer close(full)
		if src.isMapped() {
			// A mapped file cut while it is read faults: the batch being
			// framed ends the packets.
			defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
			defer src.recoverFault()
		}
		var p Packet
		for {
			var b *batch
			select {
			case b = <-free:
			case <-done:
				return
			}
			if src.blocks != nil {
				// Batches come back in order: what this one held, and
				// all before it, is analyzed.
				src.blocks.release(b.mapEnd)
			}
			b.pkts, b.slab, b.err, b.mapEnd = b.pkts[:0], b.slab[:0], nil, 0
			if src.blocks != nil {
				// Classic pcap: the block is read straight into the slab.
				b.err = src.blocks.fill(b)
			}
			for src.blocks == nil && len(b.pkts) < batchPackets && len(b.slab)+65536 <= cap(b.slab) {
				err := src.Next(&p)
				if err != nil {
					if !errors.Is(err, io.EOF) {
						b.err = err
					} else {
						b.err = io.EOF
					}
					break
				}
				start := len(b.slab)
				b.slab = append(b.slab, p.Data...)
				p.Data = b.slab[start:len(b.slab):len(b.slab)]
				b.pkts = append(b.pkts, p)
			}
			select {
			case full <- b:
			case <-done:
				return
			}
			if b.err != nil {
				return
			}
		}
	}()
	var n int64
	for b := range full {
		if !a.addBatch(src, b) {
			return n, nil // the mapped file was cut: noted
		}
		n += int64(len(b.pkts))
		if b.err != nil {
			if b.err == io.EOF {
				return n, nil
			}
			return n, b.err
		}
		free <- b
	}
	return n, nil
}

func addrOf(b [16]byte) netip.Addr { return netip.AddrFrom16(b).Unmap() }

// Add analyzes one packet.
func (a *Analyzer) Add(p *Packet) {
	a.res.Packets++
	f := &a.f
	decode(f, p.Data, p.Length, p.LinkType, &a.ports)
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
		if f.proto == ipProtoUDP {
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
	case ipProtoICMP:
		if f.icmpType == 3 {
			ft.icmpUnreach++
			if f.icmpCode == 4 {
				ft.icmpFragNeeded++
			}
		}
	case ipProtoICMPv6:
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

var protoNames = map[uint8]string{1: "icmp", 6: "tcp", 17: "udp", 58: "icmpv6"}

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
	fl.lastNano = now
	var fp uint64
	if !a.oneIface {
		fp = fingerprint(p.Data, f)
	}
	dup := false
	if d := now - fl.lastIDNano; d < copyWindow && d > -copyWindow {
		if p.PacketID != 0 {
			dup = p.PacketID == fl.lastPacketID
		} else {
			dup = fl.lastPacketID == 0 && fp != 0 && fp == fl.lastFP && int32(p.Interface) != fl.lastIface && fl.lastT == t
		}
	}
	fl.lastFP, fl.lastPacketID, fl.lastIDNano, fl.lastT, fl.lastIface = fp, p.PacketID, now, t, int32(p.Interface)
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
	if f.innerProto == ipProtoTCP {
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
		slot := &a.fcache[mix(k)>>(64-fcacheBits)]
		if slot.fl != nil && slot.k == k {
			return slot.fl, fwd
		}
		fl := a.fastF[k]
		if fl != nil {
			slot.k, slot.fl = k, fl
		}
		return fl, fwd
	}
	k, fwd := canonical(f.innerSrc, f.innerDst, f.innerSport, f.innerDport, f.vni, f.innerProto)
	return a.flows[k], fwd
}

func (a *Analyzer) storeFlow(f *frame, fl *Flow) {
	if !f.innerV6 {
		k, _ := fastFlowKey(f)
		a.fastF[k] = fl
		return
	}
	k, _ := canonical(f.innerSrc, f.innerDst, f.innerSport, f.innerDport, f.vni, f.innerProto)
	a.flows[k] = fl
}

// fcacheBits sizes the flow cache in front of the flow map: 16,384 slots,
// so that a few thousand concurrent flows seldom share one (at 4,096 two
// busy flows in a slot evicted each other on every packet).
const fcacheBits = 14

// mix spreads a key over 64 bits for the caches' indexes.
func mix(k fastKey) uint64 {
	h := (k[0] ^ k[1]*0x9E3779B97F4A7C15) * 0xBF58476D1CE4E5B9
	return h ^ h>>31
}

func fastFlowKey(f *frame) (fastKey, bool) {
	s, d := v4(&f.innerSrc)<<16|uint64(f.innerSport), v4(&f.innerDst)<<16|uint64(f.innerDport)
	fwd := s < d
	if !fwd {
		s, d = d, s
	}
	return fastKey{s<<16 ^ d>>32, d<<32 | uint64(f.vni)<<8 | uint64(f.innerProto)}, fwd
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
