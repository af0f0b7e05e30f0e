package capture

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"time"
)

// ngReader reads pcapng within Limits: a packet block larger than
// MaxPacketSize (plus room for options) is discarded as it streams by,
// never buffered; interfaces past MaxInterfaces in a section are counted,
// not kept, and their packets skipped; blocks diag does not use (name
// resolution, statistics, secrets, custom) are discarded unread whatever
// their size. Only interface and packet blocks are read into memory.
type ngReader struct {
	r      *bufio.Reader
	path   string
	lim    Limits
	skips  *readSkips
	order  binary.ByteOrder
	ifaces []ngIface
	seen   int  // interface blocks in this section, kept or not
	skipSe bool // a section of an unknown version: skipped to the next
	off    int64
	buf    []byte // blocks larger than r's buffer

	stop     *readStop // where the file ended early, if it did
	done     bool      // stopped: next returns io.EOF
	records  int64     // packet blocks passed, read or skipped
	at, need int64     // the block being read: where it starts, its length
	inPacket bool      // it is a packet block
}

// errStopped ends the reading of a file cut short or damaged; r.stop says
// where, and next turns it into io.EOF.
var errStopped = errors.New("capture file ended early")

type ngIface struct {
	link                           LinkType
	snaplen                        uint32
	secondMask, scaleUp, scaleDown uint64
	tsOffset                       uint64
	name                           string
}

const (
	ngSHB = 0x0A0D0D0A
	ngIDB = 1
	ngOPB = 2 // obsolete packet block
	ngSPB = 3
	ngEPB = 6

	maxIfaceName = 256
)

// corrupt notes that the block being read is damaged and stops the
// reading there.
func (r *ngReader) corrupt(format string, args ...any) error {
	packet, before := r.where()
	r.stop.damaged("block", r.at, packet, before, "pcapng: "+fmt.Sprintf(format, args...))
	return errStopped
}

// where says which packet the block being read is (0: no packet block)
// and how many packets came before it.
func (r *ngReader) where() (packet, before int64) {
	if r.inPacket {
		return r.records, r.records - 1
	}
	return 0, r.records
}

// truncated notes that the file ends in the middle of the block being
// read and stops the reading there.
func (r *ngReader) truncated() error {
	packet, before := r.where()
	rest, _ := io.Copy(io.Discard, r.r)
	r.stop.cutShort("block", r.at, packet, before, r.off+rest, r.need)
	return errStopped
}

func (r *ngReader) readErr(err error) error {
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return r.truncated()
	}
	return r.corrupt("reading it failed (%v)", err)
}

// discard skips n bytes of the stream without keeping them.
func (r *ngReader) discard(n int64) error {
	for n > 0 {
		m, err := r.r.Discard(int(min(n, 1<<30)))
		n -= int64(m)
		r.off += int64(m)
		if err != nil {
			return r.readErr(err)
		}
	}
	return nil
}

// block returns the whole next block of length n (its header included);
// the bytes are valid until the next call.
func (r *ngReader) block(n int) ([]byte, error) {
	if n <= r.r.Size() {
		b, err := r.r.Peek(n)
		if err != nil {
			return nil, r.readErr(err)
		}
		r.r.Discard(n)
		r.off += int64(n)
		return b, nil
	}
	if cap(r.buf) < n {
		r.buf = make([]byte, n)
	}
	b := r.buf[:n]
	if m, err := io.ReadFull(r.r, b); err != nil {
		r.off += int64(m)
		return nil, r.readErr(err)
	}
	r.off += int64(n)
	return b, nil
}

// newNgReader checks the first section header; r is positioned at it. A
// file too short for one, or whose header is wrong, is an *InputError:
// past it, a file cut short or damaged is read up to there.
func newNgReader(br *bufio.Reader, path string, lim Limits, skips *readSkips) (*ngReader, error) {
	r := &ngReader{r: br, path: path, lim: lim, skips: skips, order: binary.LittleEndian, stop: &readStop{}}
	h, err := br.Peek(28)
	if err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil, &InputError{Path: path, Err: fmt.Errorf("pcapng: %d bytes, too short for a pcapng section header (28 bytes at least)", len(h))}
		}
		return nil, &InputError{Path: path, Err: fmt.Errorf("read: %w", err)}
	}
	if binary.LittleEndian.Uint32(h) != ngSHB {
		return nil, &InputError{Path: path, Err: fmt.Errorf("pcapng: unknown magic %x", h[:4])}
	}
	switch {
	case binary.LittleEndian.Uint32(h[8:]) == 0x1A2B3C4D:
	case binary.BigEndian.Uint32(h[8:]) == 0x1A2B3C4D:
		r.order = binary.BigEndian
	default:
		return nil, &InputError{Path: path, Err: fmt.Errorf("pcapng: the section header's byte-order magic is %x, not 1a2b3c4d in either byte order", h[8:12])}
	}
	if n := r.order.Uint32(h[4:]); n < 28 || n%4 != 0 {
		return nil, &InputError{Path: path, Err: fmt.Errorf("pcapng: the section header says it is %d bytes long, not a multiple of 4 of at least 28", n)}
	}
	return r, nil
}

// next reads the next packet into p. A file cut short or damaged ends at
// the block where it is (r.stop says where), with io.EOF.
func (r *ngReader) next(p *Packet) error {
	if r.done {
		return io.EOF
	}
	err := r.next1(p)
	if err == errStopped {
		r.done = true
		return io.EOF
	}
	return err
}

func (r *ngReader) next1(p *Packet) error {
	for {
		r.inPacket, r.at, r.need = false, r.off, -1
		h, err := r.r.Peek(12)
		if len(h) == 0 && err == io.EOF {
			return io.EOF
		}
		if len(h) < 8 {
			if err == nil || err == io.EOF {
				return r.truncated()
			}
			return r.readErr(err)
		}
		if binary.LittleEndian.Uint32(h) == ngSHB {
			if len(h) < 12 {
				return r.truncated()
			}
			switch {
			case binary.LittleEndian.Uint32(h[8:]) == 0x1A2B3C4D:
				r.order = binary.LittleEndian
			case binary.BigEndian.Uint32(h[8:]) == 0x1A2B3C4D:
				r.order = binary.BigEndian
			default:
				return r.corrupt("a section header whose byte-order magic is %x", h[8:12])
			}
		}
		typ, n := r.order.Uint32(h), int64(r.order.Uint32(h[4:]))
		r.need = n
		if n < 12 || n%4 != 0 {
			return r.corrupt("a block of type %#x says it is %d bytes long, not a multiple of 4 of at least 12", typ, n)
		}
		switch {
		case typ == ngSHB:
			if n < 28 {
				return r.corrupt("a section header of %d bytes (28 at least)", n)
			}
			b, err := r.r.Peek(16)
			if err != nil {
				return r.readErr(err)
			}
			// Versions 1.x are read; the standard says to skip others.
			r.skipSe = r.order.Uint16(b[12:]) != 1
			r.ifaces, r.seen = r.ifaces[:0], 0
			if err := r.discard(n); err != nil {
				return err
			}
		case r.skipSe:
			if err := r.discard(n); err != nil {
				return err
			}
		case typ == ngIDB:
			if err := r.iface(n, r.at); err != nil {
				return err
			}
		case typ == ngEPB || typ == ngOPB || typ == ngSPB:
			r.records++
			r.inPacket = true
			ok, err := r.packet(typ, n, r.at, p)
			if ok || err != nil {
				return err
			}
		default:
			if err := r.discard(n); err != nil {
				return err
			}
		}
	}
}

// iface reads an interface description block of n bytes.
func (r *ngReader) iface(n, at int64) error {
	if n < 20 {
		return r.corrupt("an interface block of %d bytes (20 at least)", n)
	}
	r.seen++
	if len(r.ifaces) >= r.lim.MaxInterfaces {
		if r.skips.ifaces == 0 {
			r.skips.firstIface = int64(r.seen - 1)
		}
		r.skips.ifaces++
		return r.discard(n)
	}
	var b []byte
	if n > 20+maxBlockOptions {
		// Options too large to read: the interface is kept with its link
		// type and snap length.
		fixed, err := r.r.Peek(16)
		if err != nil {
			return r.readErr(err)
		}
		b = append([]byte{}, fixed...)
		r.skips.bigBlocks++
		if err := r.discard(n); err != nil {
			return err
		}
	} else {
		var err error
		if b, err = r.block(int(n)); err != nil {
			return err
		}
		b = b[:n-4]
	}
	ifc := ngIface{link: LinkType(r.order.Uint16(b[8:])), snaplen: r.order.Uint32(b[12:])}
	res := uint8(6)
	r.options(b[min(16, len(b)):], func(code uint16, v []byte) {
		switch code {
		case 2, 3: // if_name, if_description
			if ifc.name == "" || code == 2 {
				ifc.name = string(v[:min(len(v), maxIfaceName)])
			}
		case 9: // if_tsresol
			if len(v) >= 1 {
				res = v[0]
			}
		case 14: // if_tsoffset
			if len(v) >= 8 {
				ifc.tsOffset = r.order.Uint64(v)
			}
		}
	})
	if res&0x7f > 63 {
		return r.corrupt("timestamp resolution %#x of interface %d is too fine (2^-63 or 10^-63 s at most)", res, r.seen-1)
	}
	if res&0x80 != 0 {
		ifc.secondMask = 1 << (res & 0x7f)
	} else {
		ifc.secondMask = 1
		for i := uint8(0); i < res; i++ {
			ifc.secondMask *= 10
		}
	}
	if ifc.secondMask == 0 {
		ifc.secondMask = 1
	}
	ifc.scaleUp, ifc.scaleDown = 1, 1
	if ifc.secondMask < 1e9 {
		ifc.scaleUp = 1e9 / ifc.secondMask
	} else {
		ifc.scaleDown = ifc.secondMask / 1e9
	}
	if note := snaplenNote(ifc.snaplen, ifc.link, fmt.Sprintf("interface %d's", r.seen-1)); note != "" && r.stop.snaplenNote == "" {
		r.stop.snaplenNote = note
	}
	r.ifaces = append(r.ifaces, ifc)
	return nil
}

// options walks the options in b (code, length, value padded to 4 bytes);
// a cut option ends the walk.
func (r *ngReader) options(b []byte, f func(code uint16, v []byte)) {
	for len(b) >= 4 {
		code, l := r.order.Uint16(b), int(r.order.Uint16(b[2:]))
		if code == 0 || 4+l > len(b) {
			return
		}
		f(code, b[4:4+l])
		b = b[min(len(b), 4+(l+3)&^3):]
	}
}

// packet reads a packet block of n bytes into p. It reports false (and no
// error) for a packet it skipped.
func (r *ngReader) packet(typ uint32, n, at int64, p *Packet) (bool, error) {
	hdr := int64(28)
	if typ == ngSPB {
		hdr = 12
	}
	if n < hdr+4 {
		return false, r.corrupt("a packet block of %d bytes (%d at least)", n, hdr+4)
	}
	h, err := r.r.Peek(int(hdr))
	if err != nil {
		return false, r.readErr(err)
	}
	var id, caplen, wire int64
	if typ == ngSPB {
		if len(r.ifaces) == 0 {
			return false, r.corrupt("a packet before any interface block")
		}
		wire = int64(r.order.Uint32(h[8:]))
		caplen = min(wire, n-hdr-4)
		if s := int64(r.ifaces[0].snaplen); s != 0 {
			caplen = min(caplen, s)
		}
	} else {
		if typ == ngOPB {
			id = int64(r.order.Uint16(h[8:]))
		} else {
			id = int64(r.order.Uint32(h[8:]))
		}
		caplen, wire = int64(r.order.Uint32(h[20:])), int64(r.order.Uint32(h[24:]))
		if hdr+caplen+4 > n {
			return false, r.corrupt("a packet of %d bytes in a block of %d bytes", caplen, n)
		}
		if id >= int64(len(r.ifaces)) {
			if id < int64(r.seen) {
				r.skips.ifacePackets++
				return false, r.discard(n)
			}
			return false, r.corrupt("a packet on interface %d, not present in the section (it has %d)", id, r.seen)
		}
	}
	if caplen > int64(r.lim.MaxPacketSize) || n > hdr+4+int64(r.lim.MaxPacketSize)+maxBlockOptions {
		r.skips.packet(max(caplen, wire), at)
		return false, r.discard(n)
	}
	b, err := r.block(int(n))
	if err != nil {
		return false, err
	}
	ifc := &r.ifaces[id]
	p.Data = b[hdr : hdr+caplen : hdr+caplen]
	p.Length, p.Interface, p.LinkType = int(wire), int(id), ifc.link
	p.PacketID, p.Outbound = 0, 0
	if typ == ngSPB {
		// A simple packet block has no timestamp: the epoch, as tshark
		// shows it, not the zero time (whose nanoseconds overflow).
		p.Time = time.Unix(0, 0).UTC()
		return true, nil
	}
	ts := uint64(r.order.Uint32(b[12:]))<<32 | uint64(r.order.Uint32(b[16:])) // h may be stale: b is the block
	p.Time = r.time(ts, ifc, int(id))
	if typ == ngEPB {
		r.options(b[hdr+(caplen+3)&^3:n-4], func(code uint16, v []byte) {
			switch {
			case code == 2 && len(v) >= 4: // epb_flags: bits 0-1 are the direction
				switch r.order.Uint32(v) & 3 {
				case 1:
					p.Outbound = -1
				case 2:
					p.Outbound = 1
				}
			case code == 5 && len(v) >= 8: // epb_packetid
				p.PacketID = r.order.Uint64(v)
			}
		})
	}
	return true, nil
}

// Timestamps a report can hold and the analysis can subtract: those whose
// nanoseconds since 1970 fit an int64 (1677-09-21 to 2262-04-11).
var (
	minPacketTime = time.Unix(0, math.MinInt64).UTC()
	maxPacketTime = time.Unix(0, math.MaxInt64).UTC()
)

// time turns a pcapng timestamp of interface ifc into a time. One beyond
// the years 1678 to 2262 (if_tsresol and if_tsoffset can make any 64-bit
// value of seconds, and JSON holds years 0 to 9999 only) is clamped to the
// nearer bound and counted for a note.
func (r *ngReader) time(ts uint64, ifc *ngIface, id int) time.Time {
	sec := ts / ifc.secondMask
	nsec := int64(ts % ifc.secondMask * ifc.scaleUp / ifc.scaleDown)
	off := int64(ifc.tsOffset) // if_tsoffset is signed
	s := int64(sec) + off
	over := sec > math.MaxInt64 || off > 0 && s < int64(sec) || off < 0 && s > int64(sec)
	if !over && s > minPacketTime.Unix() && s < maxPacketTime.Unix() {
		return time.Unix(s, nsec).UTC()
	}
	raw := s
	if over {
		raw = math.MaxInt64
		if off < 0 && sec <= math.MaxInt64 {
			raw = math.MinInt64
		}
	}
	if r.stop.badTimes == 0 {
		r.stop.badTimeFirst, r.stop.badTimeRaw, r.stop.badTimeIface = r.records, raw, id
	}
	r.stop.badTimes++
	if raw < 0 {
		return minPacketTime
	}
	return maxPacketTime
}

// interfaceName names interface i of the current section.
func (r *ngReader) interfaceName(i int) string {
	if i < 0 || i >= len(r.ifaces) {
		return ""
	}
	return r.ifaces[i].name
}
