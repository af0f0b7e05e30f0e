package capture

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"
)

// pcapBlocks reads classic (uncompressed) pcap in large blocks: each read
// lands in a batch's slab and the packets are slices of it, so the packet
// bytes are never copied on their way to the analysis (pcapgo copies every
// packet once into its own buffer and the pipeline copied it again). Only
// the partial record at the end of a block is carried into the next one.
type pcapBlocks struct {
	r     io.Reader
	big   bool // big-endian record headers; a bool, not a binary.ByteOrder: no interface call per field
	nano  bool
	link  LinkType
	carry []byte
	eof   bool
	path  string

	cur *batch // for Next (the serial path)
	i   int

	maxPacket int        // records larger are skipped unread (Limits.MaxPacketSize)
	skips     *readSkips // what was skipped
	skip      int64      // bytes of a skipped record still to pass over
	skipAt    int64      // file offset of that record
	off       int64      // file offset of the slab's first byte

	snaplen uint32    // the file header's
	records int64     // records passed, read or skipped
	readErr error     // the read error that ended the file early (a cut gzip stream)
	stop    *readStop // where the file ended early, if it did
	done    bool      // stopped: the next fill returns io.EOF

	// mapped is the whole file mapped into memory (mmap_linux.go), when it
	// could be: packets are then slices of it, not copies. It is a view of
	// mapping, shorter when the file was cut while it was read (mapcut.go);
	// file is the file mapped. released is
	// how far the reader said it is done with it (release), freed how much
	// of it was handed back to the kernel, by the reader or the pager.
	mapped   []byte
	mapping  []byte
	file     *os.File
	cut      bool // the file was cut while it was read
	released int64
	freed    atomic.Int64
	pager    *pager // faults the mapping in ahead of the serial reader and frees it behind (mmap_linux.go)
	ahead    int64  // the bytes below it were prefetched where they were mapped: fill does not touch them
	touched  byte   // what the loads of touchAhead read: kept so they are made
}

// touchAhead: in a mapped capture, the bytes ahead of the record being
// read are loaded a cache line at a time, in order, so that they are on
// their way from memory before the chain of record lengths (each record's
// place depends on the length before it) reaches them. Without it a
// quarter of decoding a large capture was that chain's cache misses.
const touchAhead = 2048

// maxPcapRecord bounds one record: anything larger (and larger than the
// packet limit) is a corrupt length, as libpcap has it; a record between
// the packet limit and this is skipped with a note.
const maxPcapRecord = 16 << 20

// newPcapBlocks reads the 24-byte global header; r is positioned at it.
func newPcapBlocks(r io.Reader, path string) (*pcapBlocks, error) {
	var h [24]byte
	if n, err := io.ReadFull(r, h[:]); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil, &InputError{Path: path, Err: fmt.Errorf("pcap: %d bytes, too short for the 24-byte pcap file header", n)}
		}
		return nil, &InputError{Path: path, Err: fmt.Errorf("read: %w", err)}
	}
	pb := &pcapBlocks{r: r, path: path, off: 24, stop: &readStop{}}
	switch [4]byte(h[:4]) {
	case [4]byte{0xd4, 0xc3, 0xb2, 0xa1}:
	case [4]byte{0xa1, 0xb2, 0xc3, 0xd4}:
		pb.big = true
	case [4]byte{0x4d, 0x3c, 0xb2, 0xa1}:
		pb.nano = true
	case [4]byte{0xa1, 0xb2, 0x3c, 0x4d}:
		pb.big, pb.nano = true, true
	default:
		return nil, &InputError{Path: path, Err: fmt.Errorf("pcap: unknown magic %x", h[:4])}
	}
	// The upper bits of the link type field carry FCS information.
	pb.link = LinkType(pb.u32(h[20:]) & 0x0fffffff)
	pb.snaplen = pb.u32(h[16:])
	return pb, nil
}

// u32 reads a field of a record header in the file's byte order.
func (pb *pcapBlocks) u32(b []byte) uint32 {
	if pb.big {
		return binary.BigEndian.Uint32(b)
	}
	return binary.LittleEndian.Uint32(b)
}

// fill reads the next block into b and slices it into packets. It returns
// io.EOF (with no packets) after the last one. A file that ends in the
// middle of a record (cut short), a record longer than any capture holds
// (damaged) or a read error (a cut gzip stream) ends the packets there:
// the ones before are returned, then io.EOF, and pb.stop says where and
// why. A record larger than maxPacket is passed over as it streams by: at
// most one slab is held, whatever the record says.
func (pb *pcapBlocks) fill(b *batch) error {
	if pb.mapped != nil {
		return pb.fillMapped(b)
	}
	return pb.frame(b)
}

// frame is fill's work: it reads (or, mapped, finds) the block and slices
// it into packets.
func (pb *pcapBlocks) frame(b *batch) error {
	b.pkts = b.pkts[:0]
	if pb.done {
		return io.EOF
	}
	if cap(b.slab) < batchSlab && pb.mapped == nil {
		b.slab = make([]byte, 0, batchSlab)
	}
	if pb.maxPacket <= 0 {
		pb.maxPacket = DefaultMaxPacketSize
	}
	if pb.skips == nil {
		pb.skips = &readSkips{}
	}
	if pb.stop == nil {
		pb.stop = &readStop{}
	}
	var slab []byte
	var n int
	if pb.mapped != nil {
		// The rest of the file is in view: nothing to read or carry.
		slab = pb.mapped[min(pb.off, int64(len(pb.mapped))):]
		n, pb.eof = len(slab), true
	} else {
		slab = b.slab[:cap(b.slab)]
		n = copy(slab, pb.carry)
		pb.carry = pb.carry[:0]
	}
	off := 0
	touch, touched := 0, byte(0)
	if pb.mapped != nil {
		// What the reader prefetched (addAhead) is not loaded again.
		touch = int(min(max(pb.ahead-pb.off, 0), int64(n)))
	}
	for {
		for n < len(slab) && !pb.eof {
			m, err := pb.r.Read(slab[n:])
			n += m
			if err == io.EOF {
				pb.eof = true
			} else if err != nil {
				pb.eof, pb.readErr = true, err
			}
		}
		for {
			if pb.mapped != nil && len(b.pkts) >= mappedBatchPackets {
				// A batch's worth: the analyzer starts on it. The next
				// record is looked at first, for a cut right after it.
				if off+16 <= n && pb.u32(slab[off+8:]) == 0 && pb.cutUnder() {
					return errMappedCut
				}
				break
			}
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
			incl := pb.u32(slab[off+8:])
			if incl == 0 && pb.mapped != nil && pb.cutUnder() {
				return errMappedCut
			}
			if int64(incl) > int64(pb.maxPacket) {
				if incl > maxPcapRecord {
					pb.stop.damaged("record", pb.off+int64(off), pb.records+1, pb.records,
						fmt.Sprintf("packet %d's record says it holds %d bytes, more than any capture holds (at most %d; the file header's snap length is %d)",
							pb.records+1, incl, maxPcapRecord, pb.snaplen))
					pb.done = true
					break
				}
				pb.skips.packet(int64(incl), pb.off+int64(off))
				pb.skipAt = pb.off + int64(off)
				pb.records++
				off += 16
				pb.skip = int64(incl)
				continue
			}
			end := off + 16 + int(incl)
			if end > n {
				break
			}
			if pb.mapped != nil {
				// Four lines a round; the bytes short of a round are
				// loaded with the next record's.
				for ahead := min(end+touchAhead, n); touch+256 <= ahead; touch += 256 {
					w := slab[touch : touch+256]
					touched += w[0] + w[64] + w[128] + w[192]
				}
			}
			frac := int64(pb.u32(slab[off+4:]))
			if !pb.nano {
				frac *= 1000
			}
			b.pkts = append(b.pkts, Packet{
				Data:     slab[off+16 : end : end],
				Length:   int(pb.u32(slab[off+12:])),
				Time:     time.Unix(int64(pb.u32(slab[off:])), frac),
				LinkType: pb.link,
			})
			pb.records++
			off = end
		}
		if len(b.pkts) > 0 || pb.eof || pb.done {
			break
		}
		// No whole record in the slab and none kept: move what is left
		// of it to the front and read on (a record up to maxPacket may
		// need a larger slab).
		pb.off += int64(off)
		n = copy(slab, slab[off:n])
		off = 0
		if n == len(slab) {
			need := 16 + int(pb.u32(slab[8:]))
			bigger := make([]byte, max(2*len(slab), need))
			copy(bigger, slab[:n])
			slab, b.slab = bigger, bigger[:0]
		}
	}
	pb.touched += touched
	if pb.done {
		// Damaged: the packets before the bad record, then io.EOF.
		if len(b.pkts) == 0 {
			return io.EOF
		}
		return nil
	}
	rest := slab[off:n]
	if pb.eof && len(b.pkts) == 0 {
		// The end: whatever is left is a record the file cut short.
		at, packet, need := pb.off+int64(off), pb.records+1, int64(-1)
		if pb.skip > 0 {
			at, packet = pb.skipAt, pb.records
		} else if len(rest) >= 16 {
			need = 16 + int64(pb.u32(rest[8:]))
		}
		switch {
		case pb.readErr != nil:
			if pb.skip == 0 && len(rest) == 0 {
				packet = 0
			}
			pb.stop.damaged("record", at, packet, packet-1, fmt.Sprintf("reading it failed (%v)", pb.readErr))
			if packet == 0 {
				pb.stop.before = pb.records
			}
		case pb.skip > 0 || len(rest) > 0:
			pb.stop.cutShort("record", at, packet, packet-1, pb.off+int64(n), need)
		}
		pb.off += int64(off)
		pb.done = true
		return io.EOF
	}
	if pb.mapped == nil {
		pb.carry = append(pb.carry, rest...)
	}
	pb.off += int64(off)
	b.mapEnd = pb.off
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
		pb.release(pb.cur.mapEnd) // the caller is done with the last batch
		if err := pb.fill(pb.cur); err != nil {
			return err
		}
		pb.i = 0
	}
	*p = pb.cur.pkts[pb.i]
	pb.i++
	return nil
}
