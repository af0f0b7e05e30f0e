package capture

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"

	"github.com/wincni/diag/capture/etl"
)

// etlSource feeds the packet events of a pktmon ETL file to the decoder,
// as packets of the interface named after their component, with
// PktGroupId as packet id (so copies of a packet at each component are
// counted once, as for etl2pcapng's output), and keeps what only the ETL
// has: drops with reason and location, each packet's components.
type etlSource struct {
	r       *etl.Reader
	name    string
	skipped int64 // events whose payload type has no link type
	paths   pathTracker
	drops   dropTable
	ndis    bool // a netsh trace: adapters by IfIndex, not pktmon components
}

// ETLMemory is the memory the reading of a pktmon ETL file at path holds
// besides the analysis (its reorder window of inflated buffers, and the
// buffers kept for reuse), 0 for another file: a caller that sets a soft
// memory limit adds it, or the collector runs without end under a limit
// meant for flows. Only a regular file is looked into: the bytes of a
// pipe or a device (a FIFO tcpdump writes into, /dev/stdin) can be read
// once, by the decoder, so such an input is taken to be ETL.
func ETLMemory(path string) int64 {
	if st, err := os.Stat(path); err != nil {
		return 0
	} else if !st.Mode().IsRegular() {
		return etl.Memory(etl.Limits{})
	}
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	head := make([]byte, etl.SniffLen)
	if _, err := io.ReadFull(f, head); err != nil || !etl.IsETL(head) {
		return 0
	}
	return etl.Memory(etl.Limits{})
}

// isETLHead says whether br starts with an ETL file's first buffer.
func isETLHead(br *bufio.Reader) bool {
	head, _ := br.Peek(etl.SniffLen)
	return etl.IsETL(head)
}

// isCutETLHead says whether br holds the start of an ETL file cut
// before the end of its logfile header record.
func isCutETLHead(br *bufio.Reader) bool {
	head, _ := br.Peek(etl.SniffLen)
	return etl.IsCutETL(head)
}

func newETLSource(br *bufio.Reader, name string) (*etlSource, error) {
	r, err := etl.NewReader(br, name, etl.Limits{})
	if err != nil {
		return nil, &InputError{Path: name, Err: err}
	}
	s := &etlSource{r: r, name: name}
	s.paths.init()
	s.drops.init()
	return s, nil
}

func (s *etlSource) next(p *Packet) error {
	for {
		ep, err := s.r.Next()
		if errors.Is(err, io.EOF) {
			s.paths.flush()
			// Another provider's trace is the wrong file, not an empty
			// capture: said as bad input.
			if err := s.r.NotACapture(); err != nil {
				return &InputError{Path: s.name, Err: err}
			}
			return io.EOF
		}
		if err != nil {
			return &InputError{Path: s.name, Err: err}
		}
		if !ep.NDIS {
			s.paths.add(ep)
		}
		if ep.Dropped {
			s.drops.add(ep)
		}
		link, ok := etlLinkType(ep.Type)
		if !ok {
			s.skipped++
			continue
		}
		*p = Packet{Data: ep.Data, Length: max(ep.OriginalSize, len(ep.Data)), Time: ep.Time(), LinkType: link,
			Interface: int(ep.Component), PacketID: ep.GroupID, Outbound: ep.Direction.Outbound()}
		if ep.NDIS {
			p.Interface, s.ndis = int(ep.IfIndex), true
		}
		return nil
	}
}

func (s *etlSource) interfaceName(i int) string {
	if s.ndis {
		return ndisInterfaceName(uint32(i))
	}
	c, _ := s.r.Component(uint16(i))
	return etlInterfaceName(&c)
}

func (s *etlSource) notes() []string {
	out := s.r.Notes()
	if s.skipped > 0 {
		out = append(out, fmt.Sprintf("%s: %d packet events log a payload type with no link header (not Ethernet, Wi-Fi or IP): they are counted in the ETL summary, not decoded.", s.name, s.skipped))
	}
	return out
}

// pathTracker follows each PktGroupId across the components it crosses,
// in time order, and counts the distinct paths. pktmon numbers packets
// with a counter and logs a packet's appearances within microseconds, so
// the packets in flight fit a direct-mapped table by id: a packet's path
// is closed when a packet whose id maps to the same slot comes, or at
// the end. Memory holds the table, not the file.
type pathTracker struct {
	slots  []openPath
	counts map[string]*ETLPath
	key    []byte
	last   []byte   // the key of the path closed before, and its count:
	lastP  *ETLPath // most packets take the path the one before took
	other  int64    // packets whose path came after maxPaths others
}

type openPath struct {
	id    uint64
	used  bool
	drop  bool
	n     uint8
	comps [maxPathLen]uint16
}

const (
	pathSlots  = 4096
	maxPaths   = 256
	maxPathLen = 16
)

func (t *pathTracker) init() {
	t.slots, t.counts = make([]openPath, pathSlots), map[string]*ETLPath{}
}

func (t *pathTracker) add(p *etl.Packet) {
	op := &t.slots[p.GroupID&(pathSlots-1)]
	if op.used && op.id != p.GroupID {
		t.close(op)
	}
	if !op.used {
		op.id, op.used, op.n, op.drop = p.GroupID, true, 0, false
	}
	if int(op.n) < maxPathLen {
		op.comps[op.n] = p.Component
		op.n++
	}
	op.drop = op.drop || p.Dropped
}

// flush closes every open path, at the end of the file.
func (t *pathTracker) flush() {
	for i := range t.slots {
		if t.slots[i].used {
			t.close(&t.slots[i])
		}
	}
}

func (t *pathTracker) close(op *openPath) {
	op.used = false
	k := t.key[:0]
	for _, c := range op.comps[:op.n] {
		k = append(k, byte(c), byte(c>>8))
	}
	if op.drop {
		k = append(k, 1)
	}
	t.key = k
	if t.lastP != nil && string(k) == string(t.last) {
		t.lastP.Packets++
		return
	}
	if c := t.counts[string(k)]; c != nil {
		c.Packets++
		t.last, t.lastP = append(t.last[:0], k...), c
		return
	}
	if len(t.counts) >= maxPaths {
		t.other++
		return
	}
	t.counts[string(k)] = &ETLPath{Components: append([]uint16(nil), op.comps[:op.n]...), Dropped: op.drop, Packets: 1}
}

// dropTable groups drop events by reason, location and component, with
// the addresses of the first flows of each, for the report and CAP-11.
type dropTable struct {
	groups map[dropKey]*dropGroup
	order  []*dropGroup
	other  int64 // drop events past maxDropGroups groups
}

type dropKey struct {
	reason, location uint32
	component        uint16
}

type dropGroup struct {
	key      dropKey
	events   int64
	first    int64 // FILETIME
	flows    []flowCount
	moreFlow int64 // drops of flows past maxDropFlows
	noAddr   int64 // drops whose packet holds no IP header diag reads
	// Drops of broadcast and multicast packets: a port's packet filter
	// turning away what it did not subscribe to, not a failure.
	multicast int64
}

// flowCount is a flow's drop events.
type flowCount struct {
	dropFlow
	n int64
}

// dropFlow is the addresses of a dropped packet: outer, and inner when
// it is VXLAN.
type dropFlow struct {
	src, dst           netip.Addr
	sport, dport       uint16
	proto              uint8
	innerSrc, innerDst netip.Addr
}

const (
	maxDropGroups = 1024
	maxDropFlows  = 64
)

func (d *dropTable) init() { d.groups = map[dropKey]*dropGroup{} }

func (d *dropTable) add(p *etl.Packet) {
	k := dropKey{p.DropReason, p.DropLocation, p.Component}
	g := d.groups[k]
	if g == nil {
		if len(d.groups) >= maxDropGroups {
			d.other++
			return
		}
		g = &dropGroup{key: k, first: p.Filetime}
		d.groups[k] = g
		d.order = append(d.order, g)
	}
	g.events++
	if isMulticast(p) {
		g.multicast++
		return
	}
	f, ok := parseDropFlow(p)
	switch {
	case !ok:
		g.noAddr++
	default:
		for i := range g.flows {
			if g.flows[i].dropFlow == f {
				g.flows[i].n++
				return
			}
		}
		if len(g.flows) < maxDropFlows {
			g.flows = append(g.flows, flowCount{f, 1})
		} else {
			g.moreFlow++
		}
	}
}

// parseDropFlow reads the IP addresses and ports of a logged packet
// (Ethernet with VLAN tags, or raw IP), and of the packet inside when it
// is VXLAN to UDP 4789.
func parseDropFlow(p *etl.Packet) (dropFlow, bool) {
	b := p.Data
	switch p.Type {
	case etl.PacketEthernet:
		b = skipEthernet(b)
	case etl.PacketIP:
	default:
		return dropFlow{}, false
	}
	f, payload, ok := ipFlow(b)
	if !ok {
		return f, false
	}
	if f.proto == 17 && f.dport == 4789 && len(payload) >= 16 {
		if in, _, ok := ipFlow(skipEthernet(payload[16:])); ok {
			f.innerSrc, f.innerDst = in.src, in.dst
		}
	}
	return f, true
}

// isMulticast says whether a logged packet goes to a group: the
// Ethernet destination's group bit, or an IPv4 broadcast or multicast
// address, or IPv6 multicast.
func isMulticast(p *etl.Packet) bool {
	b := p.Data
	if p.Type == etl.PacketEthernet {
		if len(b) >= 1 && b[0]&1 == 1 {
			return true
		}
		b = skipEthernet(b)
	} else if p.Type != etl.PacketIP {
		return false
	}
	switch {
	case len(b) >= 20 && b[0]>>4 == 4:
		return b[16] >= 224 || b[16] == 255 && b[17] == 255 && b[18] == 255 && b[19] == 255
	case len(b) >= 40 && b[0]>>4 == 6:
		return b[24] == 0xff
	}
	return false
}

func skipEthernet(b []byte) []byte {
	if len(b) < 14 {
		return nil
	}
	et, off := binary.BigEndian.Uint16(b[12:]), 14
	for (et == 0x8100 || et == 0x88a8) && len(b) >= off+4 {
		et, off = binary.BigEndian.Uint16(b[off+2:]), off+4
	}
	if et != 0x0800 && et != 0x86DD {
		return nil
	}
	return b[off:]
}

// ipFlow reads an IPv4 or IPv6 header, the ports of TCP or UDP after it,
// and returns the transport payload.
func ipFlow(b []byte) (dropFlow, []byte, bool) {
	var f dropFlow
	var l4 []byte
	switch {
	case len(b) >= 20 && b[0]>>4 == 4:
		ihl := int(b[0]&15) * 4
		if ihl < 20 || len(b) < ihl {
			return f, nil, false
		}
		f.src, f.dst, f.proto = netip.AddrFrom4([4]byte(b[12:16])), netip.AddrFrom4([4]byte(b[16:20])), b[9]
		l4 = b[ihl:]
	case len(b) >= 40 && b[0]>>4 == 6:
		f.src, f.dst, f.proto = netip.AddrFrom16([16]byte(b[8:24])), netip.AddrFrom16([16]byte(b[24:40])), b[6]
		l4 = b[40:]
	default:
		return f, nil, false
	}
	if (f.proto == 6 || f.proto == 17) && len(l4) >= 4 {
		f.sport, f.dport = binary.BigEndian.Uint16(l4), binary.BigEndian.Uint16(l4[2:])
		if f.proto == 17 && len(l4) >= 8 {
			return f, l4[8:], true
		}
	}
	return f, nil, true
}
