package etl

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Limits bound what a Reader holds, whatever the file says. A zero field
// takes its default.
type Limits struct {
	// MaxBufferSize bounds one buffer, in the file and inflated. ETW
	// buffers are at most 16 MiB.
	MaxBufferSize int
	// ReorderBytes bounds the inflated buffers held to put packet events
	// in time order (events come per processor buffer, not in time
	// order): once it is reached, the earliest event held is passed on.
	// An event later than the window is passed on out of order and
	// counted (Stats.OutOfOrder).
	ReorderBytes int
}

// Defaults of Limits.
const (
	DefaultMaxBufferSize = 64 << 20
	DefaultReorderBytes  = 32 << 20
)

// Memory is about the most a Reader within lim holds: the reorder window,
// the buffer being read and inflated, and the buffers kept for reuse.
func Memory(lim Limits) int64 {
	lim = lim.withDefaults()
	return int64(lim.ReorderBytes) + int64(lim.ReorderBytes)/4 + 2*int64(min(lim.MaxBufferSize, 16<<20))
}

func (l Limits) withDefaults() Limits {
	if l.MaxBufferSize <= 0 {
		l.MaxBufferSize = DefaultMaxBufferSize
	}
	if l.ReorderBytes <= 0 {
		l.ReorderBytes = DefaultReorderBytes
	}
	return l
}

// SniffLen is how many bytes IsETL needs.
const SniffLen = bufferHeaderSize + 8

// IsETL says whether head (the first SniffLen bytes of a file) starts an
// ETL file: a buffer header, then a system trace record carrying the
// logfile header (group 0, type 0).
func IsETL(head []byte) bool {
	if len(head) < SniffLen {
		return false
	}
	r := head[bufferHeaderSize:]
	return (r[2] == hdrSystem64 || r[2] == hdrSystem32) && r[3]&0xC0 == 0xC0 &&
		binary.LittleEndian.Uint16(r[6:]) == 0 && binary.LittleEndian.Uint32(head[0:]) >= bufferHeaderSize
}

// IsCutETL says whether head, a whole file shorter than SniffLen, is the
// start of an ETL file cut short: as much as it holds of a first buffer's
// header (a size and saved offset that fit, the header buffer's type) and
// of the logfile header record.
func IsCutETL(head []byte) bool {
	if len(head) < 8 || len(head) >= SniffLen {
		return false
	}
	le := binary.LittleEndian
	size, saved := le.Uint32(head[0:]), le.Uint32(head[4:])
	if size < bufferHeaderSize+systemHeaderSize || size > DefaultMaxBufferSize || saved < bufferHeaderSize || saved > size {
		return false
	}
	if len(head) >= 0x38 && le.Uint16(head[0x36:]) != bufferTypeHeader {
		return false
	}
	if len(head) >= bufferHeaderSize+3 {
		if t := head[bufferHeaderSize+2]; t != hdrSystem64 && t != hdrSystem32 {
			return false
		}
	}
	return true
}

// Stats count what the reader met in the file, in file order.
type Stats struct {
	Buffers           int
	CompressedBuffers int
	CompressedBytes   int64 // compressed buffers in the file, headers included
	InflatedBytes     int64 // the same buffers inflated (their SavedOffset)
	Buffer0Extra      int   // bytes of records in buffer 0 past its SavedOffset
	SystemRecords     int64 // besides the logfile header's
	ClassicRecords    int64
	Classic           map[ClassicKind]int64
	Events            int64            // manifest events, any provider
	PktMonEvents      map[uint16]int64 // by event id
	BadEvents         int64            // PktMon events too short for their layout
	BadRecords        int64            // records skipped with the rest of their buffer
	InFileOrder       bool             // every event's timestamp >= the one before it in the file
	FirstRaw, LastRaw int64            // the earliest and latest raw timestamps of all events
	OutOfOrder        int64            // packet events passed on after a later one (beyond the reorder window)
	NDISEvents        int64            // Microsoft-Windows-NDIS-PacketCapture events (netsh trace)
	NDISPieces        int64            // of them, packets logged in pieces: not reassembled
}

// ClassicKind is a classic (EVENT_TRACE_HEADER) record's GUID and type.
type ClassicKind struct {
	GUID string
	Type uint8
}

// Reader reads the packet events of a pktmon ETL file in time order,
// one buffer at a time, and gathers the component rundown, the value
// maps and the counts the file gives on the way.
type Reader struct {
	name   string
	lim    Limits
	bufs   buffers
	header Header

	comps components
	maps  valueMaps
	vm    mapStore
	stats Stats
	sum   summary
	stop  string // why the reading stopped early, "" when it did not
	atEnd bool   // the file was read to its end (or to where it stops)

	others providers // of events not of a packet provider

	win     window
	noPkts  bool            // Scan: the packets are not kept
	pre     chan prefetched // buffers read ahead (startPrefetch)
	quit    chan struct{}
	closed  bool
	events  [256]int64 // PktMon events by id, below 256 (the rest in stats)
	out     Packet
	done    bool
	lastRaw int64
	seenRaw bool
}

// NewReader reads the first buffer of an ETL file (its logfile header)
// from r; name is used in notes and errors.
func NewReader(r io.Reader, name string, lim Limits) (*Reader, error) {
	lim = lim.withDefaults()
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	head, _ := br.Peek(SniffLen)
	if !IsETL(head) {
		if IsCutETL(head) {
			return nil, fmt.Errorf("an ETL file cut short: %d bytes, under the %d of its first buffer header and logfile header record", len(head), SniffLen)
		}
		if len(head) == 0 {
			return nil, errors.New("an empty file, not an ETL file")
		}
		return nil, fmt.Errorf("not an ETL file: it starts with %x, not a buffer header followed by the logfile header record", head[:min(len(head), 8)])
	}
	rd := &Reader{name: name, lim: lim, comps: components{}, maps: valueMaps{}}
	rd.bufs = buffers{r: br, maxSize: lim.MaxBufferSize, maxPooled: lim.ReorderBytes / 4}
	rd.stats.PktMonEvents = map[uint16]int64{}
	rd.stats.Classic = map[ClassicKind]int64{}
	rd.stats.InFileOrder = true
	rd.sum.init()
	data, h, err := rd.bufs.next()
	if err != nil {
		if err == io.EOF {
			return nil, errors.New("an empty file, not an ETL file")
		}
		return nil, fmt.Errorf("not a readable ETL file: %w", err)
	}
	rec, ok, err := nextRecord(data, bufferHeaderSize)
	if err != nil || !ok || (rec.typ != hdrSystem64 && rec.typ != hdrSystem32) || binary.LittleEndian.Uint16(rec.b[6:]) != 0 || rec.size < systemHeaderSize {
		return nil, errors.New("not an ETL file: its first buffer does not start with the logfile header record")
	}
	ts := int64(binary.LittleEndian.Uint64(rec.b[0x10:]))
	rd.header, err = parseLogfileHeader(rec.b[systemHeaderSize:], ts)
	if err != nil {
		return nil, fmt.Errorf("not a readable ETL file: %w", err)
	}
	if int(h.filled) > int(h.saved) && int(h.filled) <= len(data) {
		rd.stats.Buffer0Extra = int(h.filled) - int(h.saved)
	}
	rd.stats.Buffers = 1
	rd.index(data, align8(bufferHeaderSize+rec.size), h.processor)
	return rd, nil
}

// Header is the file's logfile header.
func (r *Reader) Header() Header { return r.header }

// Stats are the counts so far.
func (r *Reader) Stats() Stats {
	s := r.stats
	s.PktMonEvents = make(map[uint16]int64, len(r.stats.PktMonEvents))
	for id, n := range r.stats.PktMonEvents {
		s.PktMonEvents[id] = n
	}
	for id, n := range r.events {
		if n > 0 {
			s.PktMonEvents[uint16(id)] = n
		}
	}
	return s
}

// Components lists the rundown's components by id.
func (r *Reader) Components() []Component {
	out := make([]Component, 0, len(r.comps))
	for _, c := range r.comps {
		cc := *c
		if m := r.maps["ComponentType"]; m != nil {
			cc.TypeName = m[uint32(cc.Type)]
		}
		out = append(out, cc)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Component returns the component with id, if the rundown named it.
func (r *Reader) Component(id uint16) (Component, bool) {
	c, ok := r.comps[id]
	if !ok {
		return Component{ID: id}, false
	}
	cc := *c
	cc.TypeName = r.maps["ComponentType"][uint32(cc.Type)]
	return cc, true
}

// ValueMap returns an embedded PktMon value map by name (DropReason,
// PacketDirectionTag, ComponentType, PropertyType, ...), nil when the file
// has none of that name.
func (r *Reader) ValueMap(name string) map[uint32]string { return r.maps[name] }

// DropReasonName names a drop reason from the map the file embeds;
// "reason N" when the file has no name for it.
func (r *Reader) DropReasonName(v uint32) string {
	if s := r.maps["DropReason"][v]; s != "" {
		return s
	}
	return fmt.Sprintf("reason %d", v)
}

// Next returns the next packet event in time order, io.EOF after the
// last. The packet (and its Data) is valid until the next call.
func (r *Reader) Next() (*Packet, error) {
	if s := r.win.release; s != nil {
		r.bufs.put(s.data)
		r.win.recycle(s)
		r.win.release = nil
	}
	for {
		for !r.done && r.win.held < r.lim.ReorderBytes {
			if err := r.load(); err == io.EOF {
				r.done = true
			} else if err != nil {
				return nil, err
			}
		}
		if len(r.win.h) == 0 {
			return nil, io.EOF
		}
		s, e := r.win.next()
		rec := s.data[e.at : e.at+e.size]
		u, err := userData(rec)
		ndis := guid(rec[0x18:0x28]) == NDISCapProvider
		if err == nil && ndis {
			err = decodeNDISFragment(&r.out, binary.LittleEndian.Uint64(rec[0x30:]), u)
		} else if err == nil {
			err = decodePacket(&r.out, u)
		}
		if err != nil {
			r.stats.BadEvents++
			continue
		}
		r.out.Dropped = !ndis && binary.LittleEndian.Uint16(rec[0x28:]) == evDroppedPacket
		r.out.NDIS = ndis
		r.out.Timestamp, r.out.Filetime, r.out.Processor = e.ts, r.header.Filetime(e.ts), s.proc
		// Held against the latest event passed on, not the last: every
		// event of a late buffer is late, not only its first.
		if r.win.emitted && e.ts < r.win.latest {
			r.stats.OutOfOrder++
		} else {
			r.win.latest = e.ts
		}
		r.win.emitted = true
		r.sum.add(&r.out, r)
		return &r.out, nil
	}
}

// load reads the next buffer into the window; io.EOF at the end of the
// file, or where it stops being readable (Notes says why).
func (r *Reader) load() error {
	if r.stop != "" {
		return io.EOF
	}
	if r.pre == nil {
		r.startPrefetch()
	}
	m, ok := <-r.pre
	if !ok {
		r.atEnd = true
		return io.EOF
	}
	data, h, err := m.data, m.h, m.err
	if err == io.EOF {
		r.atEnd = true
		return io.EOF
	}
	var be *bufferError
	if errors.As(err, &be) {
		r.stop = be.Error()
		if errors.Is(err, errCut) {
			r.stop = "cut short in " + r.stop
		} else {
			r.stop = "damaged at " + r.stop
		}
		return io.EOF
	}
	if err != nil {
		return fmt.Errorf("read: %w", err)
	}
	r.stats.Buffers++
	if h.flags&flagCompressed != 0 {
		r.stats.CompressedBuffers++
		r.stats.CompressedBytes += int64(h.size)
		r.stats.InflatedBytes += int64(h.saved)
	}
	r.index(data, bufferHeaderSize, h.processor)
	return nil
}

// Notes say what of the file could not be read, and what the logger
// itself says it lost.
func (r *Reader) Notes() []string {
	var out []string
	s := r.Stats()
	if r.stop != "" {
		out = append(out, fmt.Sprintf("%s: the file is %s: the %d packet events before it are reported, the rest of the file is not read.", r.name, r.stop, r.sum.PacketEvents))
	}
	cut := r.atEnd && r.stop == "" && r.header.BuffersWritten > 0 && uint32(s.Buffers) < r.header.BuffersWritten && r.header.LogFileMode&logFileCircular == 0
	if cut {
		out = append(out, fmt.Sprintf("%s: the file ends after %d of the %d buffers its logfile header says were written: it was cut short between two buffers; the %d packet events before the cut are reported.%s",
			r.name, s.Buffers, r.header.BuffersWritten, r.sum.PacketEvents, r.unnamedComponents()))
	}
	if r.stats.Events > 0 && !r.packetProvider() {
		out = append(out, fmt.Sprintf("%s: %v (its providers: %s): it is not a packet capture; pktmon start -c or netsh trace start capture=yes writes one.", r.name, ErrNotACapture, r.others.String()))
	} else if r.atEnd && r.stop == "" && !cut && r.stats.Events == 0 {
		out = append(out, fmt.Sprintf("%s: the file holds no events past its logfile header: no packets, and no pktmon component rundown.", r.name))
	}
	if s.BadRecords > 0 {
		out = append(out, fmt.Sprintf("%s: %d buffers hold a damaged record: the records after it in the same buffer are skipped, the next buffers are read.", r.name, s.BadRecords))
	}
	if s.BadEvents > 0 {
		out = append(out, fmt.Sprintf("%s: %d packet capture events are too short for their layout and are skipped.", r.name, s.BadEvents))
	}
	if s.NDISPieces > 0 {
		out = append(out, fmt.Sprintf("%s: %d NDIS packet capture events hold a piece of a packet (no PacketStart and PacketEnd together): pieces are not put back together, and are left out.", r.name, s.NDISPieces))
	}
	if s.OutOfOrder > 0 {
		out = append(out, fmt.Sprintf("%s: %d packet events came more than %d MiB of buffers later in the file than their time: they are reported out of time order.", r.name, s.OutOfOrder, r.lim.ReorderBytes>>20))
	}
	if r.header.EventsLost > 0 || r.header.BuffersLost > 0 {
		out = append(out, fmt.Sprintf("%s: the trace session lost %d events and %d buffers while it ran (its logfile header says so): packets are missing from the file.", r.name, r.header.EventsLost, r.header.BuffersLost))
	}
	if r.vm.dropped > 0 {
		out = append(out, fmt.Sprintf("%s: %d embedded value maps (%s) are left out, past what is held (%d maps, %d entries each, %d in all, %d KiB of names) or malformed: the values they name (drop reasons, component types) are shown as numbers.",
			r.name, r.vm.dropped, strings.Join(r.vm.names, ", "), maxMaps, maxMapEntries, maxMapsEntries, maxMapsBytes>>10))
	}
	if r.sum.groupsCapped {
		out = append(out, fmt.Sprintf("%s: the packet ids are too scattered to count each distinct one within bounded memory: the count of distinct packets is a lower bound.", r.name))
	}
	return out
}

// Stopped says whether the file stopped being read before its end.
func (r *Reader) Stopped() bool { return r.stop != "" }
