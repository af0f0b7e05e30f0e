package capture

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"sync/atomic"
	"time"

	"github.com/wincni/diag/capture/wire"
)

// Packet is one captured frame. Data is only valid until the next call to
// Next: the readers reuse their buffer.
type Packet struct {
	Data      []byte
	Length    int // on the wire; len(Data) is what was captured
	Time      time.Time
	LinkType  LinkType
	Interface int
	PacketID  uint64 // pcapng epb_packetid (pktmon PktGroupId via etl2pcapng); 0 when absent
	Outbound  int8   // pcapng epb_flags direction: 1 out, -1 in, 0 unknown
}

// Source reads packets from a pcap or pcapng file (either gzip'd).
type Source struct {
	path   string
	f      *os.File
	blocks *pcapBlocks // classic pcap, read in blocks
	ng     *ngReader
	etl    *etlSource // a pktmon ETL file (etl_source.go)
	lim    Limits
	skips  readSkips
	stop   readStop    // where the file ended early, if it did
	shrank atomic.Bool // a mapped file was cut while it was read
	gz     *gzipTail
	Format string // "pcap", "pcapng" or "etl"
}

// InputError is a capture file that cannot be read: not a capture, or
// corrupt.
type InputError struct {
	Path string
	Err  error
}

func (e *InputError) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// BadInput marks the error as the input's, not diag's (exit 2).
func (e *InputError) BadInput() bool { return true }

// Open opens a capture file with the default Limits, choosing the reader
// by its magic number, not its name (Retina writes pcapng files named
// *.pcap).
func Open(path string) (*Source, error) { return OpenLimits(path, Limits{}) }

// OpenLimits opens a capture file read within lim.
func OpenLimits(path string, lim Limits) (*Source, error) {
	f, err := os.Open(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &InputError{Path: path, Err: err}
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, &InputError{Path: path, Err: errors.New("a directory, not a pcap or pcapng file")}
	}
	s, err := NewSourceLimits(f, path, lim)
	if err != nil {
		f.Close()
		return nil, err
	}
	s.f = f
	if s.blocks != nil && s.gz == nil {
		// A large classic pcap is mapped: its packets are read in place,
		// without the copy a read makes (a fifth of decode time).
		if data := mapFile(f); data != nil {
			s.blocks.mapped, s.blocks.mapping, s.blocks.file = data, data, f
		}
	}
	return s, nil
}

// NewSource reads a capture from r with the default Limits; name is used
// in errors.
func NewSource(r io.Reader, name string) (*Source, error) { return NewSourceLimits(r, name, Limits{}) }

// NewSourceLimits reads a capture from r within lim.
func NewSourceLimits(r io.Reader, name string, lim Limits) (*Source, error) {
	s := &Source{path: name, lim: lim.withDefaults()}
	return s, s.open(r, true)
}

func (s *Source) open(r io.Reader, gzipOK bool) error {
	name := s.path
	br := bufio.NewReaderSize(r, 1<<20)
	head, err := br.Peek(4)
	if err != nil {
		if len(head) == 0 && (err == io.EOF || s.gz != nil) {
			what := "an empty file"
			if s.gz != nil {
				what = "gzip data that inflates to nothing"
			}
			return &InputError{Path: name, Err: fmt.Errorf("%s, too short for a pcap or pcapng file (a 24-byte pcap file header or a 28-byte pcapng section header)", what)}
		}
		if err == io.EOF {
			return &InputError{Path: name, Err: fmt.Errorf("%d bytes, too short for a pcap or pcapng file (a 24-byte pcap file header or a 28-byte pcapng section header)", len(head))}
		}
		return &InputError{Path: name, Err: fmt.Errorf("read: %w", err)}
	}
	var m [4]byte
	copy(m[:], head)
	switch {
	case m == wire.MagicPcapng:
		ng, err := newNgReader(br, name, s.lim, &s.skips)
		if err != nil {
			return err
		}
		ng.stop = &s.stop
		s.ng, s.Format = ng, "pcapng"
	case isPcapMagic(m):
		pb, err := newPcapBlocks(br, name)
		if err != nil {
			return err
		}
		// The block reader reads straight into its slabs once the bytes
		// bufio already holds are used: bufio copies a read smaller than
		// its buffer twice (a fifth of decode time).
		pb.r = &drained{br: br, r: r}
		pb.maxPacket, pb.skips, pb.stop = s.lim.MaxPacketSize, &s.skips, &s.stop
		s.blocks, s.Format = pb, "pcap"
		s.stop.snaplenNote = snaplenNote(pb.snaplen, pb.link, "the file header's")
	case isETLHead(br):
		es, err := newETLSource(br, name)
		if err != nil {
			return err
		}
		s.etl, s.Format = es, "etl"
	case gzipOK && m[0] == wire.MagicGzip[0] && m[1] == wire.MagicGzip[1]:
		// Streamed: the limits apply to the decompressed packets, so a
		// small file that inflates to gigabytes costs time, not memory.
		gz, err := gzip.NewReader(br)
		if err != nil {
			return &InputError{Path: name, Err: fmt.Errorf("gzip: %w", err)}
		}
		s.gz = &gzipTail{r: gz}
		return s.open(s.gz, false)
	case isCutETLHead(br):
		_, err := newETLSource(br, name) // says how short
		return err
	default:
		return &InputError{Path: name, Err: fmt.Errorf("not a pcap or pcapng file: it starts with %x, not a pcap magic number (a1b2c3d4 or a1b23c4d, either byte order), pcapng's 0a0d0d0a, gzip's 1f8b or a pktmon ETL file's buffer header", m)}
	}
	return nil
}

// gzipTail reads a gzip stream and says whether it ended early: a
// compressed file cut short gives the packets it holds, then the end,
// and the cut is noted (gzip's io.ErrUnexpectedEOF becomes io.EOF).
type gzipTail struct {
	r   io.Reader
	cut bool
}

func (g *gzipTail) Read(b []byte) (int, error) {
	n, err := g.r.Read(b)
	if err == io.ErrUnexpectedEOF {
		g.cut, err = true, io.EOF
	}
	return n, err
}

// readStop says where a reader stopped before the end of a file that was
// cut short in the middle of a packet (or block), or that is damaged
// there; the packets before it are read, the rest is not. libpcap and
// tshark do the same ("The file appears to have been cut short in the
// middle of a packet").
type readStop struct {
	kind    int   // stopCut or stopDamaged; 0 for no stop
	at      int64 // byte offset of the record or block (decompressed)
	packet  int64 // the packet's number (from 1); 0 when not in a packet
	before  int64 // packets before it (read or skipped)
	end     int64 // cut: where the data ends
	need    int64 // cut: how long the record or block says it is; -1 unknown
	unit    string
	reason  string // damaged: what is wrong
	packets int64  // packets read in all, for a gzip stream cut between packets

	snaplenNote string // the snap length is too short to hold a VXLAN header

	badTimes                 int64 // pcapng timestamps outside what a report can hold
	badTimeFirst, badTimeRaw int64 // the first: its packet number and seconds since 1970
	badTimeIface             int
}

const (
	stopCut = iota + 1
	stopDamaged
)

func (s *readStop) cutShort(unit string, at, packet, before, end, need int64) {
	if s.kind == 0 {
		s.kind, s.unit, s.at, s.packet, s.before, s.end, s.need = stopCut, unit, at, packet, before, end, need
	}
}

func (s *readStop) damaged(unit string, at, packet, before int64, reason string) {
	if s.kind == 0 {
		s.kind, s.unit, s.at, s.packet, s.before, s.reason = stopDamaged, unit, at, packet, before, reason
	}
}

// notes say where the file stopped early, and what in it could not be
// shown as it is.
func (s *readStop) notes(name string, gzipCut bool) []string {
	var out []string
	inflated := ""
	if gzipCut {
		inflated = " (byte offsets count the decompressed data)"
	}
	before := fmt.Sprintf("the %d packets before it are reported", s.before)
	if s.before == 1 {
		before = "the packet before it is reported"
	}
	where := func() string {
		if s.packet > 0 {
			return fmt.Sprintf("packet %d (its %s starts at byte %d", s.packet, s.unit, s.at)
		}
		return fmt.Sprintf("a %s after packet %d (it starts at byte %d", s.unit, s.before, s.at)
	}
	switch s.kind {
	case stopCut:
		what := "the file appears to have been cut short in the middle of "
		if gzipCut {
			what = "the gzip data ends early (the compressed file was cut short), in the middle of "
		}
		size := ""
		if s.need >= 0 {
			size = fmt.Sprintf(" and is %d bytes long", s.need)
		}
		out = append(out, fmt.Sprintf("%s: %s%s%s; the file ends at byte %d)%s: %s.", name, what, where(), size, s.end, inflated, before))
	case stopDamaged:
		out = append(out, fmt.Sprintf("%s: the file appears to be damaged or corrupt at %s)%s: %s; %s, the rest of the file is not read.", name, where(), inflated, s.reason, before))
	default:
		if gzipCut {
			out = append(out, fmt.Sprintf("%s: the gzip data ends early (the compressed file was cut short) after packet %d, at byte %d of the decompressed data: the packets before the cut are reported, any after it are lost.",
				name, s.packets, s.end))
		}
	}
	if s.snaplenNote != "" {
		out = append(out, name+": "+s.snaplenNote)
	}
	if s.badTimes > 0 {
		out = append(out, fmt.Sprintf("%s: %d packets have timestamps outside the years 1678 to 2262 (the first, packet %d on interface %d, at %d seconds from 1970, about the year %d: check the interface's if_tsresol and if_tsoffset): their times are shown as the nearest of those bounds, and their order and the intervals between them mean nothing.",
			name, s.badTimes, s.badTimeFirst, s.badTimeIface, s.badTimeRaw, 1970+s.badTimeRaw/31556952))
	}
	return out
}

// minVXLANSnaplen is the bytes a packet needs up to the end of its VXLAN
// header, by link type: the link header, IPv4 (20), UDP (8) and VXLAN (8).
func minVXLANSnaplen(link LinkType) int {
	switch link {
	case LinkTypeEthernet:
		return 14 + 36
	case LinkTypeRaw, 228: // raw IP, raw IPv4
		return 36
	case LinkTypeLinuxSLL:
		return 16 + 36
	case LinkTypeSLL2:
		return 20 + 36
	case LinkTypeNull, LinkTypeLoop:
		return 4 + 36
	}
	return 0
}

// snaplenNote says what a snap length too short for a VXLAN header means;
// "" for one that holds it (0 means no limit, as libpcap has it).
func snaplenNote(snaplen uint32, link LinkType, whose string) string {
	need := minVXLANSnaplen(link)
	if snaplen == 0 || int64(snaplen) >= int64(need) {
		return ""
	}
	return fmt.Sprintf("%s snap length is %d bytes: packets were captured at most %d bytes long, too short for a VXLAN header (%d bytes are needed up to its end on link type %s: the link header, IPv4 20, UDP 8, VXLAN 8), so nothing inside a tunnel can be decoded. Capture whole packets: tcpdump -s 0, pktmon start -c --pkt-size 0.",
		whose, snaplen, snaplen, need, link)
}

func isPcapMagic(m [4]byte) bool { return slices.Contains(wire.MagicsPcap[:], m) }

// Next reads the next packet into p. It returns io.EOF at the end. A file
// cut short in the middle of a packet, or damaged after its header, ends
// there: the packets before are read, then io.EOF, and Notes says where
// and why. Packets over a limit are skipped (Notes says how many).
func (s *Source) Next(p *Packet) error {
	if s.etl != nil {
		return s.etl.next(p)
	}
	if s.ng != nil {
		return s.ng.next(p)
	}
	p.Interface, p.PacketID, p.Outbound = 0, 0, 0
	return s.blocks.next(p)
}

// InterfaceName names a pcapng interface, for reports.
func (s *Source) InterfaceName(i int) string {
	if s.etl != nil {
		return s.etl.interfaceName(i)
	}
	if s.ng == nil {
		return ""
	}
	return s.ng.interfaceName(i)
}

// Notes say what the source skipped because of its limits so far, each
// naming the flag that raises the limit.
// It also says where a file cut short or damaged stopped being read.
func (s *Source) Notes() []string {
	if s.stop.kind == 0 {
		s.stop.packets, s.stop.end = s.packetsRead()
	}
	out := append(s.skips.notes(s.path, s.lim), s.stop.notes(s.path, s.gz != nil && s.gz.cut)...)
	if s.etl != nil {
		out = append(out, s.etl.notes()...)
	}
	if s.shrank.Load() || s.blocks != nil && s.blocks.cut {
		out = append(out, s.path+": the file was cut while it was read (a capture still being written, or truncated): the packets read before the cut are reported.")
	}
	return out
}

// packetsRead says how many packets were passed (read or skipped) and at
// which byte the reading ended.
func (s *Source) packetsRead() (int64, int64) {
	if s.ng != nil {
		return s.ng.records, s.ng.off
	}
	if s.blocks != nil {
		return s.blocks.records, s.blocks.off
	}
	return 0, 0
}

// Close closes the file.
func (s *Source) Close() error {
	if s.etl != nil {
		s.etl.r.Close()
	}
	if s.blocks != nil {
		s.blocks.unmap()
	}
	if s.f != nil {
		return s.f.Close()
	}
	return nil
}

// unmap hands the mapping back: the packets are read from the file after it.
func (pb *pcapBlocks) unmap() {
	if pb.mapping != nil {
		unmapFile(pb.mapping)
	}
	pb.mapped, pb.mapping = nil, nil
}

// isMapped says whether the packets are read in place from a mapped file,
// where a file cut while it is read faults instead of ending. It reads
// the mapping, not its view (mapped), which the reader shortens at a cut
// while the analysis asks.
func (s *Source) isMapped() bool { return s.blocks != nil && s.blocks.mapping != nil }

// recoverFault, deferred (after debug.SetPanicOnFault(true)) by a
// goroutine that touches a mapped file, turns the fault of a file that
// shrank under it into the end of the packets, noted (Notes); any other
// panic goes on. at, when not nil, is told of the fault first (to note
// where it struck). The function it was deferred in returns its results
// as they stood.
func (s *Source) recoverFault(at func()) {
	if r := recover(); r != nil {
		if !isFault(r) {
			panic(r)
		}
		if at != nil {
			at()
		}
		s.shrank.Store(true)
	}
}

// isFault says whether a recovered panic is a memory fault
// (debug.SetPanicOnFault): a mapped file that shrank under the reader.
func isFault(r any) bool {
	e, ok := r.(runtime.Error)
	if !ok {
		return false
	}
	_, addr := e.(interface{ Addr() uintptr })
	return addr
}

// drained reads what a bufio.Reader holds, then from the reader under it
// directly.
type drained struct {
	br *bufio.Reader
	r  io.Reader
}

func (d *drained) Read(p []byte) (int, error) {
	if d.br != nil {
		if d.br.Buffered() > 0 {
			return d.br.Read(p)
		}
		d.br = nil
	}
	return d.r.Read(p)
}
