package etltest

import (
	"encoding/binary"
	"io"
	"sort"
	"time"
	"unicode/utf16"
)

// Options shape the file.
type Options struct {
	Start      time.Time // the trace's start (and the logfile-header record's time)
	PerfFreq   int64     // QPC ticks per second; 10 MHz when 0
	Build      uint32    // Windows build; 20348 when 0
	Compress   bool      // compress every buffer after buffer 0, as the relogger does
	BufferSize int       // bytes of records per buffer before it is written; 64 KiB when 0
}

// Component is a component of the rundown (event 20, and 73 for a
// vSwitch name).
type Component struct {
	ID          uint16
	Type        uint16
	Name        string
	Description string
	VSwitch     string
}

// Packet is a packet event: 160, or 170 when Dropped.
type Packet struct {
	At           time.Duration // after Start
	Processor    int           // the buffer stream it goes to
	GroupID      uint64
	Number       uint16
	Appearance   uint16
	Direction    uint16
	Type         uint16 // 1 Ethernet, 3 IP
	Component    uint16
	Edge         uint16
	Dropped      bool
	DropReason   uint32
	DropLocation uint32
	OriginalSize int // len(Data) when 0
	Data         []byte
}

// Writer writes an ETL file to an io.Writer buffer by buffer.
type Writer struct {
	out      io.Writer
	opts     Options
	headerTS int64
	streams  map[int][]byte // records per processor, not yet written
	err      error
	buffers  int
}

const (
	bufferHeaderSize = 0x48
	headerTS         = 1_000_000_000
)

var (
	ndiscap       = guid(0x2ed6006e, 0x4729, 0x4609, [8]byte{0xb4, 0x23, 0x3e, 0xe7, 0xbc, 0xd6, 0x78, 0xef})
	pktmon        = guid(0x4d4f80d9, 0xc8bd, 0x4d73, [8]byte{0xbb, 0x5b, 0x19, 0xc9, 0x04, 0x02, 0xc5, 0xac})
	eventMetadata = guid(0xbbccf6c1, 0x6cd1, 0x48c4, [8]byte{0x80, 0xff, 0x83, 0x94, 0x82, 0xe3, 0x76, 0x71})
)

func guid(d1 uint32, d2, d3 uint16, d4 [8]byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, d1)
	b = binary.LittleEndian.AppendUint16(b, d2)
	b = binary.LittleEndian.AppendUint16(b, d3)
	return append(b, d4[:]...)
}

// NewWriter writes buffer 0 to out.
func NewWriter(out io.Writer, opts Options) (*Writer, error) {
	if opts.PerfFreq == 0 {
		opts.PerfFreq = 10_000_000
	}
	if opts.Build == 0 {
		opts.Build = 20348
	}
	if opts.BufferSize == 0 {
		opts.BufferSize = 64 << 10
	}
	if opts.Start.IsZero() {
		opts.Start = time.Date(2024, 6, 10, 20, 18, 27, 0, time.UTC)
	}
	w := &Writer{out: out, opts: opts, headerTS: headerTS, streams: map[int][]byte{}}
	_, err := out.Write(w.buffer0())
	return w, err
}

// filetime is t in 100 ns since 1601.
func filetime(t time.Time) uint64 { return uint64(t.UnixNano()/100 + 116444736000000000) }

// buffer0 is the header buffer: the logfile header record, then one
// more system record past SavedOffset (as the relogger leaves it), in
// 1024 bytes padded with 0xFF.
func (w *Writer) buffer0() []byte {
	p := make([]byte, 0x118)
	le := binary.LittleEndian
	le.PutUint32(p[0x00:], 1<<24)
	le.PutUint32(p[0x04:], 0x0002000a)
	le.PutUint32(p[0x08:], w.opts.Build)
	le.PutUint32(p[0x0C:], 4)
	le.PutUint64(p[0x10:], filetime(w.opts.Start.Add(time.Hour)))
	le.PutUint32(p[0x24:], 0)
	le.PutUint32(p[0x2C:], 8)
	le.PutUint32(p[0x34:], 2594)
	le.PutUint64(p[0xF8:], filetime(w.opts.Start.Add(-time.Hour)))
	le.PutUint64(p[0x100:], uint64(w.opts.PerfFreq))
	le.PutUint64(p[0x108:], filetime(w.opts.Start))
	le.PutUint32(p[0x110:], 1) // QPC
	p = append(p, utf16z("Relogger")...)
	p = append(p, utf16z(`C:\PktMon.etl`)...)
	b := make([]byte, bufferHeaderSize, 1024)
	b = append(b, systemRecord(0x0000, w.headerTS, p)...)
	b = pad8(b)
	saved := len(b)
	b = append(b, systemRecord(0x0050, w.headerTS, make([]byte, 0x30))...)
	filled := len(b)
	for len(b) < 1024 {
		b = append(b, 0xFF)
	}
	le.PutUint32(b[0x00:], 1024)
	le.PutUint32(b[0x04:], uint32(saved))
	le.PutUint32(b[0x30:], uint32(filled))
	le.PutUint16(b[0x34:], 0x1) // flush marker
	le.PutUint16(b[0x36:], 4)   // header buffer
	return b
}

func systemRecord(hook uint16, ts int64, payload []byte) []byte {
	r := make([]byte, 0x20, 0x20+len(payload))
	le := binary.LittleEndian
	le.PutUint16(r[0:], 2)
	r[2], r[3] = 0x02, 0xC0
	le.PutUint16(r[4:], uint16(0x20+len(payload)))
	le.PutUint16(r[6:], hook)
	le.PutUint64(r[0x10:], uint64(ts))
	return append(r, payload...)
}

func pad8(b []byte) []byte {
	for len(b)%8 != 0 {
		b = append(b, 0)
	}
	return b
}

func utf16z(s string) []byte {
	var b []byte
	for _, c := range utf16.Encode([]rune(s)) {
		b = binary.LittleEndian.AppendUint16(b, c)
	}
	return append(b, 0, 0)
}

// ts is the raw QPC timestamp d after the start.
func (w *Writer) ts(d time.Duration) int64 {
	return w.headerTS + int64(d)/1e3*w.opts.PerfFreq/1e6 + (int64(d)%1e3)*w.opts.PerfFreq/1e9
}

// event appends a PktMon event record to processor proc's stream.
func (w *Writer) event(proc int, id uint16, keyword uint64, at time.Duration, user []byte) {
	w.providerEvent(pktmon, proc, id, keyword, at, user)
}

// providerEvent appends an event record of a provider.
func (w *Writer) providerEvent(provider []byte, proc int, id uint16, keyword uint64, at time.Duration, user []byte) {
	r := make([]byte, 0x50, 0x50+len(user))
	le := binary.LittleEndian
	le.PutUint16(r[0:], uint16(0x50+len(user)))
	r[2], r[3] = 0x13, 0xC0
	le.PutUint64(r[0x10:], uint64(w.ts(at)))
	copy(r[0x18:], provider)
	le.PutUint16(r[0x28:], id)
	r[0x2C] = 4 // level
	le.PutUint64(r[0x30:], keyword)
	w.add(proc, append(r, user...))
}

// add appends a record (8-byte aligned) to a stream, writing the
// stream's buffer first when the record would not fit.
func (w *Writer) add(proc int, rec []byte) {
	s := w.streams[proc]
	if len(s) > 0 && bufferHeaderSize+len(s)+len(rec) > w.opts.BufferSize {
		w.flush(proc)
		s = nil
	}
	w.streams[proc] = pad8(append(s, rec...))
}

// flush writes processor proc's buffer.
func (w *Writer) flush(proc int) {
	s := w.streams[proc]
	if len(s) == 0 || w.err != nil {
		return
	}
	w.streams[proc] = s[:0]
	h := make([]byte, bufferHeaderSize)
	le := binary.LittleEndian
	saved := bufferHeaderSize + len(s)
	le.PutUint32(h[0x04:], uint32(saved))
	le.PutUint32(h[0x08:], uint32(saved))
	le.PutUint16(h[0x28:], uint16(proc))
	le.PutUint32(h[0x30:], uint32(saved))
	body := s
	flags := uint16(0x20)
	if w.opts.Compress {
		body = Compress(s)
		flags |= 0x40
	}
	le.PutUint32(h[0x00:], uint32(bufferHeaderSize+len(body)))
	le.PutUint16(h[0x34:], flags)
	if _, err := w.out.Write(h); err != nil {
		w.err = err
		return
	}
	if _, err := w.out.Write(body); err != nil {
		w.err = err
	}
	w.buffers++
}

// Component writes the rundown of c (event 20, and 73 for a vSwitch).
func (w *Writer) Component(c Component) {
	u := binary.LittleEndian.AppendUint16(nil, c.ID)
	u = binary.LittleEndian.AppendUint16(u, c.Type)
	u = append(u, utf16z(c.Name)...)
	u = append(u, utf16z(c.Description)...)
	w.event(0, 20, 2, 0, u)
	if c.VSwitch != "" {
		v := binary.LittleEndian.AppendUint16(nil, c.ID)
		v = binary.LittleEndian.AppendUint16(v, 10) // VMSwitchName
		w.event(0, 73, 2, 0, append(v, utf16z(c.VSwitch)...))
	}
}

// ValueMap writes a PktMon value map (an EventMetadata type 33 record
// holding the provider GUID and an EVENT_MAP_INFO) as the relogger does.
func (w *Writer) ValueMap(name string, m map[uint32]string) {
	keys := make([]uint32, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	le := binary.LittleEndian
	fixed := 16 + 8*len(keys)
	info := make([]byte, fixed)
	le.PutUint32(info[0:], uint32(fixed))
	le.PutUint32(info[4:], 1) // manifest value map
	le.PutUint32(info[8:], uint32(len(keys)))
	info = append(info, utf16z(name)...)
	for i, k := range keys {
		le.PutUint32(info[16+8*i:], uint32(len(info)))
		le.PutUint32(info[20+8*i:], k)
		info = append(info, utf16z(m[k]+" ")...)
	}
	r := make([]byte, 0x30)
	le.PutUint16(r[0:], uint16(0x30+16+len(info)))
	r[2], r[3] = 0x14, 0xC0
	r[4] = 33
	le.PutUint64(r[0x10:], uint64(w.headerTS))
	copy(r[0x18:], eventMetadata)
	r = append(r, pktmon...)
	w.add(0, append(r, info...))
}

// Packet writes a packet event.
func (w *Writer) Packet(p Packet) {
	le := binary.LittleEndian
	u := make([]byte, 34, 34+len(p.Data))
	le.PutUint64(u[0:], p.GroupID)
	le.PutUint16(u[8:], p.Number)
	le.PutUint16(u[10:], p.Appearance)
	le.PutUint16(u[12:], p.Direction)
	le.PutUint16(u[14:], p.Type)
	le.PutUint16(u[16:], p.Component)
	le.PutUint16(u[18:], p.Edge)
	le.PutUint32(u[22:], p.DropReason)
	le.PutUint32(u[26:], p.DropLocation)
	orig := p.OriginalSize
	if orig == 0 {
		orig = len(p.Data)
	}
	le.PutUint16(u[30:], uint16(orig))
	le.PutUint16(u[32:], uint16(len(p.Data)))
	id := uint16(160)
	if p.Dropped {
		id = 170
	}
	w.event(p.Processor, id, 0x10, p.At, append(u, p.Data...))
}

// Start is the trace's start: packet times count from it.
func (w *Writer) Start() time.Time { return w.opts.Start }

// NDISPacket is a Microsoft-Windows-NDIS-PacketCapture event (netsh
// trace): 1001, a packet fragment, or another id with Data as its user
// data.
type NDISPacket struct {
	At              time.Duration
	Processor       int
	ID              uint16 // 1001 when 0
	MiniportIfIndex uint32
	LowerIfIndex    uint32
	Keyword         uint64 // medium, direction, PacketStart/End, truncated
	Data            []byte
}

// NDIS keywords (the provider's manifest).
const (
	NDISEthernet    = 0x1
	NDISWirelessWAN = 0x200
	NDISTruncated   = 0x2000000
	NDISPacketStart = 0x40000000
	NDISPacketEnd   = 0x80000000
	NDISSendPath    = 0x100000000
	NDISReceivePath = 0x200000000
)

// NDISPacket writes an NDIS-PacketCapture event.
func (w *Writer) NDISPacket(p NDISPacket) {
	id := p.ID
	if id == 0 {
		id = 1001
	}
	u := p.Data
	if id == 1001 {
		u = binary.LittleEndian.AppendUint32(nil, p.MiniportIfIndex)
		u = binary.LittleEndian.AppendUint32(u, p.LowerIfIndex)
		u = binary.LittleEndian.AppendUint32(u, uint32(len(p.Data)))
		u = append(u, p.Data...)
	}
	w.providerEvent(ndiscap, p.Processor, id, p.Keyword, p.At, u)
}

// Close writes the buffers still open, processor by processor, and
// returns the first write error.
func (w *Writer) Close() error {
	procs := make([]int, 0, len(w.streams))
	for p := range w.streams {
		procs = append(procs, p)
	}
	sort.Ints(procs)
	for _, p := range procs {
		w.flush(p)
	}
	return w.err
}
