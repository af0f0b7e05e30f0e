package payload

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// MaxCapture bounds the capture Clear reads in memory (a gzip'd one
// counts inflated).
var MaxCapture int64 = 1 << 30

// Clear clears the payloads of every packet of a pcap or pcapng file
// (gzip'd too, and then gzip'd again), in place for an uncompressed one,
// and returns the capture and how many payload bytes were cleared. A
// capture that cannot be read to its end is an error: what follows the
// damage could not be cleared. vxlanPorts are VXLAN ports besides 4789
// and 8472 (--vxlan-port), whose inner frames are walked into.
func Clear(data []byte, vxlanPorts ...uint16) ([]byte, int64, error) {
	c := newClearer(vxlanPorts...)
	out, err := Inflated(data, MaxCapture, func(raw []byte) ([]byte, error) {
		if len(raw) < 4 {
			return nil, errors.New("not a pcap or pcapng file")
		}
		var err error
		if binary.LittleEndian.Uint32(raw) == PcapngSHB {
			err = c.pcapng(raw)
		} else {
			err = PcapFrames(raw, c.frame)
		}
		if err != nil {
			return nil, err
		}
		return raw, nil
	})
	if err != nil {
		return nil, 0, err
	}
	return out, c.cleared, nil
}

// Inflated runs rewrite on a capture file, a gzip'd one inflated first
// (to at most max bytes) and rewrite's result deflated again.
func Inflated(data []byte, max int64, rewrite func([]byte) ([]byte, error)) ([]byte, error) {
	if len(data) < 2 || data[0] != 0x1f || data[1] != 0x8b {
		return rewrite(data)
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("gzip: %w", err)
	}
	raw, err := io.ReadAll(io.LimitReader(zr, max+1))
	if err != nil {
		return nil, fmt.Errorf("gzip: %w", err)
	}
	if int64(len(raw)) > max {
		return nil, fmt.Errorf("inflates to more than %d MiB", max>>20)
	}
	out, err := Inflated(raw, max, rewrite) // gzip'd again inside
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(out) // a bytes.Buffer does not fail
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// PcapFrames calls frame with the packet of each record of a classic pcap
// file and the file's link type; a last record cut short is passed as far
// as it goes.
func PcapFrames(data []byte, frame func(pkt []byte, link uint32)) error {
	if len(data) < 24 {
		return errors.New("pcap file header cut short")
	}
	var order binary.ByteOrder
	switch binary.LittleEndian.Uint32(data) {
	case 0xa1b2c3d4, 0xa1b23c4d:
		order = binary.LittleEndian
	case 0xd4c3b2a1, 0x4d3cb2a1:
		order = binary.BigEndian
	default:
		return errors.New("not a pcap or pcapng file")
	}
	link := order.Uint32(data[20:24]) & 0x0fffffff
	for off := 24; off+16 <= len(data); {
		incl := int(order.Uint32(data[off+8:]))
		end := off + 16 + incl
		if incl < 0 || end > len(data) || end < off {
			frame(data[off+16:], link) // the last record, cut short
			break
		}
		frame(data[off+16:end], link)
		off = end
	}
	return nil
}

// Pcapng block types (pcapng draft, section 4).
const (
	PcapngSHB uint32 = 0x0a0d0d0a // section header
	PcapngIDB uint32 = 0x00000001 // interface description
	PcapngOPB uint32 = 0x00000002 // obsolete packet
	PcapngSPB uint32 = 0x00000003 // simple packet
	PcapngEPB uint32 = 0x00000006 // enhanced packet
)

// PcapngBlock is one block of a pcapng file: where it starts, its type
// and body (between the lengths), read in its section's byte order.
type PcapngBlock struct {
	Off   int
	Type  uint32
	Order binary.ByteOrder
	Body  []byte
}

// PcapngBlocks calls fn with each block of a pcapng file in turn, each in
// the byte order its section header gives. A block whose length does not
// fit the file ends the walk with an error.
func PcapngBlocks(data []byte, fn func(PcapngBlock) error) error {
	var order binary.ByteOrder = binary.LittleEndian
	for off := 0; off+12 <= len(data); {
		typ := binary.LittleEndian.Uint32(data[off:])
		if typ == PcapngSHB {
			switch binary.LittleEndian.Uint32(data[off+8:]) {
			case 0x1a2b3c4d:
				order = binary.LittleEndian
			case 0x4d3c2b1a:
				order = binary.BigEndian
			default:
				return fmt.Errorf("pcapng section at byte %d: unknown byte order", off)
			}
		} else {
			typ = order.Uint32(data[off:])
		}
		n := int(order.Uint32(data[off+4:]))
		if n < 12 || n%4 != 0 || off+n > len(data) || off+n < off {
			return fmt.Errorf("pcapng block at byte %d: length %d does not fit the file", off, n)
		}
		if err := fn(PcapngBlock{Off: off, Type: typ, Order: order, Body: data[off+8 : off+n-4]}); err != nil {
			return err
		}
		off += n
	}
	return nil
}

// PcapngPacket is the interface index and the captured bytes of an
// enhanced or obsolete packet block's body (cut to the body when its
// length says more), or an error when the body is too short for one.
func PcapngPacket(b PcapngBlock) (iface int, pkt []byte, err error) {
	if len(b.Body) < 20 {
		return 0, nil, fmt.Errorf("pcapng packet block at byte %d cut short", b.Off)
	}
	iface = int(b.Order.Uint32(b.Body[0:]))
	if b.Type == PcapngOPB {
		iface = int(b.Order.Uint16(b.Body[0:]))
	}
	capLen := min(int(b.Order.Uint32(b.Body[12:])), len(b.Body)-20)
	return iface, b.Body[20 : 20+max(capLen, 0)], nil
}

func (c *clearer) pcapng(data []byte) error {
	var links []uint32
	return PcapngBlocks(data, func(b PcapngBlock) error {
		switch b.Type {
		case PcapngSHB:
			links = links[:0]
		case PcapngIDB:
			if len(b.Body) >= 2 {
				links = append(links, uint32(b.Order.Uint16(b.Body)))
			}
		case PcapngEPB, PcapngOPB:
			id, pkt, err := PcapngPacket(b)
			switch {
			case err != nil:
				return err
			case len(pkt) == 0:
			case id < len(links):
				c.frame(pkt, links[id])
			default:
				// No interface describes it: no reader can tell its
				// headers from its payload, so it goes whole.
				clear(pkt)
				c.cleared += int64(len(pkt))
			}
		case PcapngSPB:
			if len(links) > 0 && len(b.Body) > 4 {
				c.frame(b.Body[4:], links[0])
			}
		}
		return nil
	})
}
