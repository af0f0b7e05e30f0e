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
	"unsafe"

	"github.com/wincni/diag/capture/wire"
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
	// AnalyzeBundle calls it with 0 before the first packet of a bundle.
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
	// What every packet reads and writes first, in the object's first
	// 64-byte line (objects of its size class start on 64 bytes): with
	// thousands of concurrent flows every packet touches a flow that is
	// cold. What only SYN, FIN and RST packets change comes after.
	Packets      int64  `json:"packets"`
	Bytes        int64  `json:"bytes"`
	lastFP       uint64 // the last packet, to recognise its copies: fingerprint
	lastPacketID uint64 // pcapng packet id (pktmon PktGroupId)
	lastNano     int64
	lastT        *Tunnel
	lastIface    int32
	openerFwd    bool // the opener is the lower end of the flow key
	encapsulated bool

	lastSYN   int64
	syns      int32
	synAcks   int32
	rsts      int32
	fins      int32
	lastSYNID uint16

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

	_ [40]byte // to 320 bytes, a size class of 64-byte multiples
}

type tunnelKey struct {
	src, dst [16]byte
	vni      uint32
}

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
	tail    byte // what addAhead's loads of each packet's last byte read: kept so that they are made
	opts    Options
	ports   wire.Ports
	f       frame
	res     Result
	tunnels map[tunnelKey]*Tunnel
	flows   map[flowKey]*Flow
	fastT   map[fastKey]*Tunnel
	fastF   flowTable
	// A direct-mapped cache in front of the tunnels' map: most packets
	// belong to a tunnel seen moments ago.
	tcache [64]struct {
		k fastKey
		t *Tunnel
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
		fastT: map[fastKey]*Tunnel{},
		plain: map[flowKey]*Flow{}, mal: map[uint8]int64{}, vnis: map[uint32]int64{}, pairT: map[[2]netip.Addr]*Tunnel{},
		lim: opts.Limits.withDefaults(), flowOver: overflow{seed: maphash.MakeSeed()}, tunOver: overflow{seed: maphash.MakeSeed()}}
	if len(opts.VXLANPorts) == 0 {
		a.ports.Add(4789)
	}
	for _, p := range opts.VXLANPorts {
		a.ports.Add(p)
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

// ReadSource analyzes every packet of a source. A mapped capture is read
// in place in one goroutine; otherwise, with more than one CPU, reading
// (I/O and pcap framing) and analysis run as a two-stage pipeline over
// batches of copied packets. The order of packets is kept.
func (a *Analyzer) ReadSource(src *Source, name string) error {
	fs := FileSummary{Path: name, Format: src.Format}
	// A classic pcap holds one interface: none of its packets is a copy
	// by the rule of flowPacket (another interface), so none needs a
	// fingerprint. (A flow's first packet in a later file is then not
	// compared with its last one in this file.)
	a.oneIface = src.Format == "pcap"
	defer func() { a.oneIface = false }()
	var err error
	switch {
	case src.isMapped():
		// Read in place, framing costs little: handing batches to a
		// second goroutine cost a fifth more CPU than it saved (cache
		// lines crossing cores, a wake-up a batch), which a node with
		// no core to spare pays in full. With a core free, a pager
		// takes the page faults off the analysis instead.
		if runtime.GOMAXPROCS(0) > 1 {
			src.blocks.startPager()
			defer src.blocks.stopPager()
		}
		fs.Packets, err = a.readSerial(src)
	case runtime.GOMAXPROCS(0) > 1:
		fs.Packets, err = a.readPipelined(src)
	default:
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
	var b *batch
	var batchFrom int64 // n when b's analysis began
	if src.isMapped() {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		// n counts the packets before the cut; a fault in the analysis
		// struck the packet after them, the one the cut went through.
		defer src.recoverFault(func() {
			if i := n - batchFrom; b != nil && i >= 0 && i < int64(len(b.pkts)) {
				src.blocks.noteCutUnder(&b.pkts[i], len(b.pkts)-int(i), n)
			}
		})
	}
	if pb := src.blocks; pb != nil {
		// Classic pcap: a batch at a time, its packets analyzed where
		// they lie, not copied out one by one.
		b = &batch{}
		for {
			pb.release(b.mapEnd) // the last batch is analyzed
			start := pb.off
			err := pb.fill(b)
			var next []byte
			if pb.mapped != nil && b.mapEnd > start {
				// The next batch is about as long as this one.
				next = pb.mapped[b.mapEnd:min(b.mapEnd+(b.mapEnd-start), int64(len(pb.mapped)))]
				if end := b.mapEnd + int64(len(next)); canPrefetch && pb.mappedTo() >= end {
					// Mapped, so the prefetches are not dropped: fill
					// need not load these bytes ahead again.
					pb.ahead = end
				}
			}
			batchFrom = n
			a.addAhead(b.pkts, next, &n)
			if err == io.EOF {
				return n, nil
			}
			if err != nil {
				return n, err
			}
		}
	}
	var p Packet
	for {
		err := src.Next(&p)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return n, nil
			}
			return n, err
		}
		n++
		a.Add(&p)
	}
}

// addAhead analyzes the packets of a batch in order while asking for the
// bytes of the next, next (a mapped capture's: nil otherwise), a part
// with each packet. Framing a batch then finds its bytes in the cache:
// the loads of fill's touchAhead held up the reader until they came,
// a prefetch holds nothing up and the memory works during the analysis.
// n counts the packets analyzed (a mapped file cut under the analysis
// ends it with a fault).
func (a *Analyzer) addAhead(pk []Packet, next []byte, n *int64) {
	var p unsafe.Pointer
	left, step := len(next), 0
	if left > 0 && len(pk) > 0 {
		p, step = unsafe.Pointer(&next[0]), (left/len(pk)+63)&^63
	}
	for i := range pk {
		if d := pk[i].Data; len(d) > 0 && next != nil {
			// A mapped packet's last byte first: a file cut through
			// the packet (its tail in pages gone) faults here, before
			// its headers are analyzed.
			a.tail += d[len(d)-1]
		}
		if left > 0 {
			m := min(step, left)
			prefetchLines(p, uintptr(m))
			if left -= m; left > 0 {
				// Never past the end: a pointer there may be one
				// into the Go heap, which the garbage collector
				// would find bad.
				p = unsafe.Add(p, m)
			}
		}
		a.Add(&pk[i])
		*n++ // after: a packet whose bytes fault (a file cut under it) is not counted
	}
}

// addBatch analyzes a batch; false when a mapped file faulted under it.
func (a *Analyzer) addBatch(src *Source, b *batch) (ok bool) {
	if src.isMapped() {
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer src.recoverFault(nil) // ok stays false
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
	// A mapped capture's batches are shorter (~100 KB): the batch being
	// analyzed and the next one, prefetched (addAhead), then leave room
	// in the core's cache for the flows.
	mappedBatchPackets = 128
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
			defer src.recoverFault(nil)
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
