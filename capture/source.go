// Package capture reads pcap and pcapng files, decodes VXLAN overlay traffic
// with a fixed-header fast path, keeps per-tunnel and per-flow state, and
// turns what it sees into findings (CAP-01..CAP-09). Memory grows with the
// number of flows, never with the number of packets.
package capture

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
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

// Source reads packets from a pcap or pcapng file.
type Source struct {
	path   string
	f      *os.File
	pcap   *pcapgo.Reader
	blocks *pcapBlocks // classic uncompressed pcap, read in blocks
	ng     *pcapgo.NgReader
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

// Open opens a capture file, choosing the reader by its magic number, not
// its name (Retina writes pcapng files named *.pcap).
func Open(path string) (*Source, error) {
	f, err := os.Open(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &InputError{Path: path, Err: err}
	}
	s, err := NewSource(f, path)
	if err != nil {
		f.Close()
		return nil, err
	}
	s.f = f
	return s, nil
}

// NewSource reads a capture from r; name is used in errors.
func NewSource(r io.Reader, name string) (*Source, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	head, err := br.Peek(4)
	if err != nil {
		return nil, &InputError{Path: name, Err: errors.New("not a pcap or pcapng file (too short)")}
	}
	var m [4]byte
	copy(m[:], head)
	s := &Source{path: name}
	switch {
	case m == magicPcapng:
		ng, err := pcapgo.NewNgReader(br, pcapgo.NgReaderOptions{WantMixedLinkType: true, SkipUnknownVersion: true})
		if err != nil {
			return nil, &InputError{Path: name, Err: fmt.Errorf("pcapng: %w", err)}
		}
		s.ng, s.Format = ng, "pcapng"
	case isPcapMagic(m):
		pb, err := newPcapBlocks(br, name)
		if err != nil {
			return nil, err
		}
		s.blocks, s.Format = pb, "pcap"
	case m[0] == magicGzip[0] && m[1] == magicGzip[1]:
		pr, err := pcapgo.NewReader(br)
		if err != nil {
			return nil, &InputError{Path: name, Err: fmt.Errorf("pcap: %w", err)}
		}
		s.pcap, s.Format = pr, "pcap"
	default:
		return nil, &InputError{Path: name, Err: fmt.Errorf("not a pcap or pcapng file (magic %x)", m)}
	}
	return s, nil
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
// *InputError when the file is truncated or corrupt.
func (s *Source) Next(p *Packet) error {
	if s.ng != nil {
		data, ci, opts, err := s.ng.ZeroCopyReadPacketDataWithOptions()
		if err != nil {
			return s.wrap(err)
		}
		p.Data, p.Length, p.Time, p.Interface = data, ci.Length, ci.Timestamp, ci.InterfaceIndex
		p.LinkType = layers.LinkTypeEthernet
		if len(ci.AncillaryData) > 0 {
			if lt, ok := ci.AncillaryData[0].(layers.LinkType); ok {
				p.LinkType = lt
			}
		}
		p.PacketID, p.Outbound = 0, 0
		if opts.PacketID != nil {
			p.PacketID = *opts.PacketID
		}
		if opts.Flags != nil {
			switch opts.Flags.Direction {
			case pcapgo.NgEpbFlagDirectionInbound:
				p.Outbound = -1
			case pcapgo.NgEpbFlagDirectionOutbound:
				p.Outbound = 1
			}
		}
		return nil
	}
	if s.blocks != nil {
		p.Interface, p.PacketID, p.Outbound = 0, 0, 0
		return s.blocks.next(p)
	}
	data, ci, err := s.pcap.ZeroCopyReadPacketData()
	if err != nil {
		return s.wrap(err)
	}
	p.Data, p.Length, p.Time, p.Interface = data, ci.Length, ci.Timestamp, 0
	p.LinkType, p.PacketID, p.Outbound = s.pcap.LinkType(), 0, 0
	return nil
}

func (s *Source) wrap(err error) error {
	if err == io.EOF {
		return io.EOF
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return &InputError{Path: s.path, Err: errors.New("truncated capture file (the last packet is cut off)")}
	}
	return &InputError{Path: s.path, Err: fmt.Errorf("corrupt capture: %w", err)}
}

// InterfaceName names a pcapng interface, for reports.
func (s *Source) InterfaceName(i int) string {
	if s.ng == nil {
		return ""
	}
	iface, err := s.ng.Interface(i)
	if err != nil {
		return ""
	}
	if iface.Name != "" {
		return iface.Name
	}
	return iface.Description
}

// Close closes the file.
func (s *Source) Close() error {
	if s.f != nil {
		return s.f.Close()
	}
	return nil
}
