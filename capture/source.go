// Package capture reads pcap and pcapng files, decodes VXLAN overlay traffic
// with a fixed-header fast path, keeps per-tunnel and per-flow state, and
// turns what it sees into findings (CAP-01..CAP-09). Memory grows with the
// number of flows, never with the number of packets.
package capture

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/gopacket/gopacket/layers"
)

// Packet is one captured frame. Data is only valid until the next call to
// Next: the readers reuse their buffer.
type Packet struct {
	Data      []byte
	Length    int // on the wire; len(Data) is what was captured
	Time      time.Time
	LinkType  layers.LinkType
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
	lim    Limits
	skips  readSkips
	Format string // "pcap" or "pcapng"
}

// InputError is a capture file that cannot be read: not a capture, or
// corrupt. The command line maps it to exit code 2.
type InputError struct {
	Path string
	Err  error
}

func (e *InputError) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// Magic numbers of the two formats (pcap in either byte order, micro- or
// nanosecond timestamps; pcapng's section header block).
var (
	magicPcapng = [4]byte{0x0a, 0x0d, 0x0d, 0x0a}
	magicsPcap  = [][4]byte{{0xd4, 0xc3, 0xb2, 0xa1}, {0xa1, 0xb2, 0xc3, 0xd4}, {0x4d, 0x3c, 0xb2, 0xa1}, {0xa1, 0xb2, 0x3c, 0x4d}}
	magicGzip   = [2]byte{0x1f, 0x8b}
)

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
	s, err := NewSourceLimits(f, path, lim)
	if err != nil {
		f.Close()
		return nil, err
	}
	s.f = f
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
		return &InputError{Path: name, Err: errors.New("not a pcap or pcapng file (too short)")}
	}
	var m [4]byte
	copy(m[:], head)
	switch {
	case m == magicPcapng:
		ng, err := newNgReader(br, name, s.lim, &s.skips)
		if err != nil {
			return err
		}
		s.ng, s.Format = ng, "pcapng"
	case isPcapMagic(m):
		pb, err := newPcapBlocks(br, name)
		if err != nil {
			return err
		}
		pb.maxPacket, pb.skips = s.lim.MaxPacketSize, &s.skips
		s.blocks, s.Format = pb, "pcap"
	case gzipOK && m[0] == magicGzip[0] && m[1] == magicGzip[1]:
		// Streamed: the limits apply to the decompressed packets, so a
		// small file that inflates to gigabytes costs time, not memory.
		gz, err := gzip.NewReader(br)
		if err != nil {
			return &InputError{Path: name, Err: fmt.Errorf("gzip: %w", err)}
		}
		return s.open(gz, false)
	default:
		return &InputError{Path: name, Err: fmt.Errorf("not a pcap or pcapng file (magic %x)", m)}
	}
	return nil
}

func isPcapMagic(m [4]byte) bool {
	for _, p := range magicsPcap {
		if m == p {
			return true
		}
	}
	return false
}

// Next reads the next packet into p. It returns io.EOF at the end, and an
// *InputError when the file is truncated or corrupt. Packets over a limit
// are skipped (Skipped says how many).
func (s *Source) Next(p *Packet) error {
	if s.ng != nil {
		return s.ng.next(p)
	}
	p.Interface, p.PacketID, p.Outbound = 0, 0, 0
	return s.blocks.next(p)
}

// InterfaceName names a pcapng interface, for reports.
func (s *Source) InterfaceName(i int) string {
	if s.ng == nil {
		return ""
	}
	return s.ng.interfaceName(i)
}

// Notes say what the source skipped because of its limits so far, each
// naming the flag that raises the limit.
func (s *Source) Notes() []string { return s.skips.notes(s.path, s.lim) }

// Close closes the file.
func (s *Source) Close() error {
	if s.f != nil {
		return s.f.Close()
	}
	return nil
}
