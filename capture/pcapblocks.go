package capture

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/gopacket/gopacket/layers"
)

// pcapBlocks reads classic (uncompressed) pcap in large blocks: each read
// lands in a batch's slab and the packets are slices of it, so the packet
// bytes are never copied on their way to the analysis (pcapgo copies every
// packet once into its own buffer and the pipeline copied it again). Only
// the partial record at the end of a block is carried into the next one.
type pcapBlocks struct {
	r     io.Reader
	order binary.ByteOrder
	nano  bool
	link  layers.LinkType
	carry []byte
	eof   bool
	path  string

	cur *batch // for Next (the serial path)
	i   int

	maxPacket int        // records larger are skipped unread (Limits.MaxPacketSize)
	skips     *readSkips // what was skipped
	skip      int64      // bytes of a skipped record still to pass over
	off       int64      // file offset of the slab's first byte
}

// maxPcapRecord bounds one record: anything larger (and larger than the
// packet limit) is a corrupt length, as libpcap has it; a record between
// the packet limit and this is skipped with a note.
const maxPcapRecord = 16 << 20

// newPcapBlocks reads the 24-byte global header; r is positioned at it.
func newPcapBlocks(r io.Reader, path string) (*pcapBlocks, error) {
	var h [24]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, &InputError{Path: path, Err: errors.New("pcap: truncated file header")}
	}
	pb := &pcapBlocks{r: r, path: path, off: 24}
	switch [4]byte(h[:4]) {
	case [4]byte{0xd4, 0xc3, 0xb2, 0xa1}:
		pb.order = binary.LittleEndian
	case [4]byte{0xa1, 0xb2, 0xc3, 0xd4}:
		pb.order = binary.BigEndian
	case [4]byte{0x4d, 0x3c, 0xb2, 0xa1}:
		pb.order, pb.nano = binary.LittleEndian, true
	case [4]byte{0xa1, 0xb2, 0x3c, 0x4d}:
		pb.order, pb.nano = binary.BigEndian, true
	default:
		return nil, &InputError{Path: path, Err: fmt.Errorf("pcap: unknown magic %x", h[:4])}
	}
	// The upper bits of the link type field carry FCS information.
	pb.link = layers.LinkType(pb.order.Uint32(h[20:]) & 0x0fffffff)
	return pb, nil
}

// fill reads the next block into b and slices it into packets. It returns
// io.EOF (with no packets) after the last one, and an *InputError for a
// truncated or corrupt file. A record larger than maxPacket is passed over
// as it streams by: at most one slab is held, whatever the record says.
func (pb *pcapBlocks) fill(b *batch) error {
	b.pkts = b.pkts[:0]
	if cap(b.slab) < batchSlab {
		b.slab = make([]byte, 0, batchSlab)
	}
	if pb.maxPacket <= 0 {
		pb.maxPacket = DefaultMaxPacketSize
	}
	if pb.skips == nil {
		pb.skips = &readSkips{}
	}
	slab := b.slab[:cap(b.slab)]
	n := copy(slab, pb.carry)
	pb.carry = pb.carry[:0]
	off := 0
	for {
		for n < len(slab) && !pb.eof {
			m, err := pb.r.Read(slab[n:])
			n += m
			if err == io.EOF {
				pb.eof = true
			} else if err != nil {
				return &InputError{Path: pb.path, Err: fmt.Errorf("read: %w", err)}
			}
		}
		for {
			if pb.skip > 0 {
				d := int(min(pb.skip, int64(n-off)))
				off += d
				pb.skip -= int64(d)
				if pb.skip > 0 {
					break // the slab is used up
				}
			}
			if off+16 > n {
				break
			}
			incl := pb.order.Uint32(slab[off+8:])
			if int64(incl) > int64(pb.maxPacket) {
				if incl > maxPcapRecord {
					return &InputError{Path: pb.path, Err: fmt.Errorf("corrupt capture: a packet record of %d bytes at byte %d", incl, pb.off+int64(off))}
				}
				pb.skips.packet(int64(incl), pb.off+int64(off))
				off += 16
				pb.skip = int64(incl)
				continue
			}
			end := off + 16 + int(incl)
			if end > n {
				break
			}
			frac := int64(pb.order.Uint32(slab[off+4:]))
			if !pb.nano {
				frac *= 1000
			}
			b.pkts = append(b.pkts, Packet{
				Data:     slab[off+16 : end : end],
				Length:   int(pb.order.Uint32(slab[off+12:])),
				Time:     time.Unix(int64(pb.order.Uint32(slab[off:])), frac),
				LinkType: pb.link,
			})
			off = end
		}
		if len(b.pkts) > 0 || pb.eof {
			break
		}
		// No whole record in the slab and none kept: move what is left
		// of it to the front and read on (a record up to maxPacket may
		// need a larger slab).
		pb.off += int64(off)
		n = copy(slab, slab[off:n])
		off = 0
		if n == len(slab) {
			need := 16 + int(pb.order.Uint32(slab[8:]))
			bigger := make([]byte, max(2*len(slab), need))
			copy(bigger, slab[:n])
			slab, b.slab = bigger, bigger[:0]
		}
	}
	if rest := slab[off:n]; len(rest) > 0 || pb.skip > 0 {
		if pb.eof && len(b.pkts) == 0 {
			return &InputError{Path: pb.path, Err: errors.New("truncated capture file (the last packet is cut off)")}
		}
		pb.carry = append(pb.carry, rest...)
	}
	pb.off += int64(off)
	if len(b.pkts) == 0 {
		return io.EOF
	}
	return nil
}

// next is Source.Next over blocks: Data stays valid until the next call.
func (pb *pcapBlocks) next(p *Packet) error {
	if pb.cur == nil {
		pb.cur = &batch{}
	}
	if pb.i == len(pb.cur.pkts) {
		if err := pb.fill(pb.cur); err != nil {
			return err
		}
		pb.i = 0
	}
	*p = pb.cur.pkts[pb.i]
	pb.i++
	return nil
}
