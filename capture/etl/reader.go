package etl

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sort"
)

// Limits bound what a Reader holds, whatever the file says. A zero field
// takes its default.
type Limits struct {
	// MaxBufferSize bounds one buffer, in the file and inflated. ETW
	// buffers are at most 16 MiB.
	MaxBufferSize int
	// ReorderEvents and ReorderBytes bound the packet events held to put
	// them in time order (events come per processor buffer, not in time
	// order): once either is reached the earliest is passed on. An event
	// later than the window is passed on out of order and counted
	// (Stats.OutOfOrder).
	ReorderEvents int
	ReorderBytes  int
}

// Defaults of Limits.
const (
	DefaultMaxBufferSize = 64 << 20
	DefaultReorderEvents = 1 << 18
	DefaultReorderBytes  = 64 << 20
)

func (l Limits) withDefaults() Limits {
	if l.MaxBufferSize <= 0 {
		l.MaxBufferSize = DefaultMaxBufferSize
	}
	if l.ReorderEvents <= 0 {
		l.ReorderEvents = DefaultReorderEvents
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

	cur  []byte // records of the current buffer
	pos  int
	proc uint16

	comps components
	maps  valueMaps
	stats Stats
	sum   summary
	stop  string // why the reading stopped early, "" when it did not

	window  reorder
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
		if len(head) == 0 {
			return nil, errors.New("an empty file, not an ETL file")
		}
		return nil, fmt.Errorf("not an ETL file: it starts with %x, not a buffer header followed by the logfile header record", head[:min(len(head), 8)])
	}
	rd := &Reader{name: name, lim: lim, comps: components{}, maps: valueMaps{}}
	rd.bufs = buffers{r: br, maxSize: lim.MaxBufferSize}
	rd.stats.PktMonEvents = map[uint16]int64{}
	rd.stats.Classic = map[ClassicKind]int64{}
	rd.stats.InFileOrder = true
	rd.sum.init()
	rd.window.maxEvents, rd.window.maxBytes = lim.ReorderEvents, lim.ReorderBytes
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
	rd.cur, rd.pos, rd.proc = data, align8(bufferHeaderSize+rec.size), h.processor
	rd.stats.Buffers = 1
	return rd, nil
}

// Header is the file's logfile header.
func (r *Reader) Header() Header { return r.header }

// Stats are the counts so far.
func (r *Reader) Stats() Stats {
	s := r.stats
	s.CompressedBuffers, s.CompressedBytes, s.InflatedBytes = int(r.bufs.compressed), r.bufs.compressedBytes, r.bufs.inflatedBytes
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

// DropReasonName names a drop reason from the map the file embeds, else
// from the reasons every build shares; "reason N" for one neither knows.
func (r *Reader) DropReasonName(v uint32) string {
	if s := r.maps["DropReason"][v]; s != "" {
		return s
	}
	return fmt.Sprintf("reason %d", v)
}

// Next returns the next packet event in time order, io.EOF after the
// last. The packet (and its Data) is valid until the next call.
func (r *Reader) Next() (*Packet, error) {
	for !r.done && !r.window.full() {
		p, err := r.rawNext()
		if err == io.EOF {
			r.done = true
			break
		}
		if err != nil {
			return nil, err
		}
		if r.window.emitted && p.Timestamp < r.window.lastOut {
			r.stats.OutOfOrder++
		}
		r.window.push(p)
	}
	if r.window.len() == 0 {
		return nil, io.EOF
	}
	r.window.pop(&r.out)
	r.sum.add(&r.out, r)
	return &r.out, nil
}

// rawNext returns the next packet event in file order; its Data points
// into the current buffer.
func (r *Reader) rawNext() (*Packet, error) {
	for {
		if r.cur == nil {
			if r.stop != "" {
				return nil, io.EOF
			}
			data, h, err := r.bufs.next()
			if err == io.EOF {
				return nil, io.EOF
			}
			var be *bufferError
			if errors.As(err, &be) {
				r.stop = be.Error()
				if errors.Is(err, errCut) {
					r.stop = "cut short in " + r.stop
				} else {
					r.stop = "damaged at " + r.stop
				}
				return nil, io.EOF
			}
			if err != nil {
				return nil, fmt.Errorf("read: %w", err)
			}
			r.stats.Buffers++
			r.cur, r.pos, r.proc = data, bufferHeaderSize, h.processor
		}
		rec, ok, err := nextRecord(r.cur, r.pos)
		if err != nil {
			r.stats.BadRecords++
			ok = false
		}
		if !ok {
			r.cur = nil
			continue
		}
		r.pos = align8(r.pos + rec.size)
		if p := r.record(rec); p != nil {
			return p, nil
		}
	}
}

// record takes in one record; it returns the packet of a packet event.
func (r *Reader) record(rec record) *Packet {
	le := binary.LittleEndian
	switch rec.typ {
	case hdrSystem32, hdrSystem64, hdrCompact32, hdrCompact64, hdrPerfInfo32, hdrPerfInfo64:
		r.stats.SystemRecords++
	case hdrFullHeader32, hdrFullHeader64:
		r.stats.ClassicRecords++
		if rec.size >= traceHeaderSize {
			k := ClassicKind{GUID: guid(rec.b[0x18:0x28]).String(), Type: rec.b[4]}
			if _, ok := r.stats.Classic[k]; ok || len(r.stats.Classic) < 1024 {
				r.stats.Classic[k]++
			}
		}
		if rec.size >= traceHeaderSize+16 && guid(rec.b[0x18:0x28]) == eventMetadataGUID && rec.b[4] == 33 &&
			guid(rec.b[traceHeaderSize:traceHeaderSize+16]) == PktMonProvider && len(r.maps) < maxMaps {
			if name, m, ok := parseEventMapInfo(rec.b[traceHeaderSize+16:]); ok {
				r.maps[name] = m
			}
		}
	case hdrEventHeader32, hdrEventHeader64:
		r.stats.Events++
		if rec.size < eventHeaderSize {
			r.stats.BadEvents++
			return nil
		}
		ts := int64(le.Uint64(rec.b[0x10:]))
		if r.seenRaw && ts < r.lastRaw {
			r.stats.InFileOrder = false
		}
		if !r.seenRaw || ts < r.stats.FirstRaw {
			r.stats.FirstRaw = ts
		}
		if !r.seenRaw || ts > r.stats.LastRaw {
			r.stats.LastRaw = ts
		}
		r.seenRaw, r.lastRaw = true, ts
		if guid(rec.b[0x18:0x28]) != PktMonProvider {
			return nil
		}
		id := le.Uint16(rec.b[0x28:])
		if len(r.stats.PktMonEvents) < 4096 || r.stats.PktMonEvents[id] > 0 {
			r.stats.PktMonEvents[id]++
		}
		u, err := userData(rec.b)
		if err != nil {
			r.stats.BadEvents++
			return nil
		}
		switch {
		case id == evPacket || id == evDroppedPacket:
			p := &r.window.scratch
			if err := decodePacket(p, u); err != nil {
				r.stats.BadEvents++
				return nil
			}
			p.Dropped = id == evDroppedPacket
			p.Timestamp = ts
			p.Filetime = r.header.Filetime(ts)
			p.Processor = r.proc
			return p
		case id >= evComponent && id <= evFlowCounters:
			if err := r.comps.rundown(id, u); err != nil {
				r.stats.BadEvents++
			}
		}
	}
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
	if s.BadRecords > 0 {
		out = append(out, fmt.Sprintf("%s: %d buffers hold a damaged record: the records after it in the same buffer are skipped, the next buffers are read.", r.name, s.BadRecords))
	}
	if s.BadEvents > 0 {
		out = append(out, fmt.Sprintf("%s: %d PktMon events are too short for their layout and are skipped.", r.name, s.BadEvents))
	}
	if s.OutOfOrder > 0 {
		out = append(out, fmt.Sprintf("%s: %d packet events came later in the file than %d events or %d MiB after their time: they are reported out of time order.", r.name, s.OutOfOrder, r.lim.ReorderEvents, r.lim.ReorderBytes>>20))
	}
	if r.header.EventsLost > 0 || r.header.BuffersLost > 0 {
		out = append(out, fmt.Sprintf("%s: the trace session lost %d events and %d buffers while it ran (its logfile header says so): packets are missing from the file.", r.name, r.header.EventsLost, r.header.BuffersLost))
	}
	if r.sum.groupsCapped {
		out = append(out, fmt.Sprintf("%s: the packet ids are too scattered to count each distinct one within bounded memory: the count of distinct packets is a lower bound.", r.name))
	}
	return out
}

// Stopped says whether the file stopped being read before its end.
func (r *Reader) Stopped() bool { return r.stop != "" }
