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
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, 0, fmt.Errorf("gzip: %w", err)
		}
		raw, err := io.ReadAll(io.LimitReader(zr, MaxCapture+1))
		if err != nil {
			return nil, 0, fmt.Errorf("gzip: %w", err)
		}
		if int64(len(raw)) > MaxCapture {
			return nil, 0, fmt.Errorf("inflates to more than %d MiB", MaxCapture>>20)
		}
		out, n, err := Clear(raw, vxlanPorts...)
		if err != nil {
			return nil, 0, err
		}
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(out) // a bytes.Buffer does not fail
		if err := zw.Close(); err != nil {
			return nil, 0, err
		}
		return buf.Bytes(), n, nil
	}
	if len(data) < 4 {
		return nil, 0, errors.New("not a pcap or pcapng file")
	}
	c := clearer{ports: map[uint16]bool{}}
	for _, p := range vxlanPorts {
		c.ports[p] = true
	}
	var err error
	if binary.LittleEndian.Uint32(data) == 0x0a0d0d0a {
		err = c.pcapng(data)
	} else {
		err = c.pcap(data)
	}
	if err != nil {
		return nil, 0, err
	}
	return data, c.cleared, nil
}

func (c *clearer) pcap(data []byte) error {
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
			c.frame(data[off+16:], link) // the last record, cut short
			break
		}
		c.frame(data[off+16:end], link)
		off = end
	}
	return nil
}

func (c *clearer) pcapng(data []byte) error {
	var order binary.ByteOrder = binary.LittleEndian
	var links []uint32
	for off := 0; off+12 <= len(data); {
		typ := binary.LittleEndian.Uint32(data[off:])
		if typ == 0x0a0d0d0a {
			switch binary.LittleEndian.Uint32(data[off+8:]) {
			case 0x1a2b3c4d:
				order = binary.LittleEndian
			case 0x4d3c2b1a:
				order = binary.BigEndian
			default:
				return fmt.Errorf("pcapng section at byte %d: unknown byte order", off)
			}
			links = links[:0]
		} else {
			typ = order.Uint32(data[off:])
		}
		n := int(order.Uint32(data[off+4:]))
		if n < 12 || n%4 != 0 || off+n > len(data) || off+n < off {
			return fmt.Errorf("pcapng block at byte %d: length %d does not fit the file", off, n)
		}
		body := data[off+8 : off+n-4]
		switch typ {
		case 0x00000001: // IDB
			if len(body) >= 2 {
				links = append(links, uint32(order.Uint16(body)))
			}
		case 0x00000006, 0x00000002: // EPB, OPB
			if len(body) < 20 {
				return fmt.Errorf("pcapng packet block at byte %d cut short", off)
			}
			id := int(order.Uint32(body[0:]))
			if typ == 2 {
				id = int(order.Uint16(body[0:]))
			}
			capLen := min(int(order.Uint32(body[12:])), len(body)-20)
			switch {
			case capLen <= 0:
			case id < len(links):
				c.frame(body[20:20+capLen], links[id])
			default:
				// No interface describes it: no reader can tell its
				// headers from its payload, so it goes whole.
				clear(body[20 : 20+capLen])
				c.cleared += int64(capLen)
			}
		case 0x00000003: // SPB
			if len(links) > 0 && len(body) > 4 {
				c.frame(body[4:], links[0])
			}
		}
		off += n
	}
	return nil
}
