package anonymize

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// MaxCapture bounds the capture Capture rewrites in memory (a gzip'd one
// counts inflated).
var MaxCapture int64 = 1 << 30

// Capture rewrites a pcap or pcapng file (gzip'd too, and then gzip'd
// again): every packet's addresses mapped in place, lengths unchanged (a
// classic pcap is rewritten in data itself: a capture of a gigabyte is not
// held twice). In
// pcapng, the blocks that could name the capturing host or hold other
// data (name resolution, decryption secrets, statistics, custom blocks)
// are left out, and so are the options of the others but for the ones a
// reader needs (timestamp resolution, FCS length, packet flags).
func (a *Anonymizer) Capture(data []byte) ([]byte, error) {
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		raw, err := io.ReadAll(io.LimitReader(zr, MaxCapture+1))
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		if int64(len(raw)) > MaxCapture {
			return nil, fmt.Errorf("inflates to more than %d MiB", MaxCapture>>20)
		}
		out, err := a.Capture(raw)
		if err != nil {
			return nil, err
		}
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(out)
		if err := zw.Close(); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	}
	if len(data) < 4 {
		return nil, errors.New("not a pcap or pcapng file")
	}
	if binary.LittleEndian.Uint32(data) == 0x0a0d0d0a {
		return a.pcapng(data)
	}
	return a.pcap(data)
}

func (a *Anonymizer) pcap(data []byte) ([]byte, error) {
	if len(data) < 24 {
		return nil, errors.New("pcap file header cut short")
	}
	var order binary.ByteOrder
	switch binary.LittleEndian.Uint32(data) {
	case 0xa1b2c3d4, 0xa1b23c4d:
		order = binary.LittleEndian
	case 0xd4c3b2a1, 0x4d3cb2a1:
		order = binary.BigEndian
	default:
		return nil, errors.New("not a pcap or pcapng file")
	}
	out := data
	link := order.Uint32(out[20:24]) & 0x0fffffff
	for off := 24; off+16 <= len(out); {
		incl := int(order.Uint32(out[off+8:]))
		end := off + 16 + incl
		if incl < 0 || end > len(out) {
			a.frame(out[off+16:], link) // the last record, cut short
			break
		}
		a.frame(out[off+16:end], link)
		off = end
	}
	return out, nil
}

// Options kept per pcapng block type.
var keptOptions = map[uint32]map[uint16]bool{
	0x00000001: {9: true, 13: true, 14: true}, // IDB: if_tsresol, if_fcslen, if_tsoffset (capture decode reads them)
	0x00000006: {2: true, 5: true},            // EPB: epb_flags, epb_packetid (pktmon's duplicates are told by it)
}

func (a *Anonymizer) pcapng(data []byte) ([]byte, error) {
	out := make([]byte, 0, len(data))
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
				return nil, fmt.Errorf("pcapng section at byte %d: unknown byte order", off)
			}
			links = links[:0]
		} else {
			typ = order.Uint32(data[off:])
		}
		n := int(order.Uint32(data[off+4:]))
		if n < 12 || n%4 != 0 || off+n > len(data) {
			return nil, fmt.Errorf("pcapng block at byte %d: length %d does not fit the file", off, n)
		}
		body := append([]byte(nil), data[off+8:off+n-4]...)
		var fixed int // the body's fixed part, before options
		switch typ {
		case 0x0a0d0d0a: // SHB
			fixed = 16
			if len(body) >= 16 {
				// Blocks are left out: the section's length is "unknown".
				copy(body[8:16], []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
			}
		case 0x00000001: // IDB
			fixed = 8
			if len(body) >= 2 {
				links = append(links, uint32(order.Uint16(body)))
			}
		case 0x00000006, 0x00000002: // EPB, OPB
			if len(body) < 20 {
				return nil, fmt.Errorf("pcapng packet block at byte %d cut short", off)
			}
			capLen := int(order.Uint32(body[12:]))
			id := int(order.Uint32(body[0:]))
			if typ == 2 {
				id = int(order.Uint16(body[0:]))
			}
			if capLen > len(body)-20 {
				capLen = len(body) - 20
			}
			if id >= len(links) {
				// No interface describes it: its bytes cannot be read,
				// so they are not kept.
				off += n
				continue
			}
			a.frame(body[20:20+capLen], links[id])
			fixed = 20 + (capLen+3)/4*4
		case 0x00000003: // SPB
			if len(links) > 0 && len(body) > 4 {
				a.frame(body[4:], links[0])
			}
			fixed = len(body)
		default:
			off += n
			continue // left out
		}
		fixed = min(fixed, len(body))
		body = append(body[:fixed:fixed], options(body[fixed:], order, keptOptions[typ])...)
		total := len(body) + 12
		var hdr [8]byte
		if typ == 0x0a0d0d0a {
			binary.LittleEndian.PutUint32(hdr[0:], typ)
		} else {
			order.PutUint32(hdr[0:], typ)
		}
		order.PutUint32(hdr[4:], uint32(total))
		out = append(out, hdr[:]...)
		out = append(out, body...)
		out = append(out, hdr[4:8]...) // the trailing length
		off += n
	}
	if len(out) == 0 {
		return nil, errors.New("pcapng file without a whole section header block")
	}
	return out, nil
}

// options keeps the options whose codes are in keep, and the end marker.
func options(b []byte, order binary.ByteOrder, keep map[uint16]bool) []byte {
	var out []byte
	for len(b) >= 4 {
		code, n := order.Uint16(b), int(order.Uint16(b[2:]))
		if code == 0 {
			break
		}
		padded := (n + 3) / 4 * 4
		if 4+padded > len(b) {
			break
		}
		if keep[code] {
			out = append(out, b[:4+padded]...)
		}
		b = b[4+padded:]
	}
	if len(out) > 0 {
		out = append(out, 0, 0, 0, 0)
	}
	return out
}
