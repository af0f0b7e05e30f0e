package anonymize

import (
	"encoding/binary"
	"errors"

	"github.com/wincni/diag/capture/payload"
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
	a.walk = nil // a walk's state (fragments) is one capture's, not the next one's
	return payload.Inflated(data, MaxCapture, func(raw []byte) ([]byte, error) {
		if len(raw) < 4 {
			return nil, errors.New("not a pcap or pcapng file")
		}
		if binary.LittleEndian.Uint32(raw) == payload.PcapngSHB {
			return a.pcapng(raw)
		}
		if err := payload.PcapFrames(raw, a.frame); err != nil {
			return nil, err
		}
		return raw, nil
	})
}

// Options kept per pcapng block type.
var keptOptions = map[uint32]map[uint16]bool{
	payload.PcapngIDB: {9: true, 13: true, 14: true}, // IDB: if_tsresol, if_fcslen, if_tsoffset (capture decode reads them)
	payload.PcapngEPB: {2: true, 5: true},            // EPB: epb_flags, epb_packetid (pktmon's duplicates are told by it)
}

func (a *Anonymizer) pcapng(data []byte) ([]byte, error) {
	out := make([]byte, 0, len(data))
	var links []uint32
	err := payload.PcapngBlocks(data, func(blk payload.PcapngBlock) error {
		typ, order := blk.Type, blk.Order
		body := append([]byte(nil), blk.Body...)
		var fixed int // the body's fixed part, before options
		switch typ {
		case payload.PcapngSHB:
			links = links[:0]
			fixed = 16
			if len(body) >= 16 {
				// Blocks are left out: the section's length is "unknown".
				copy(body[8:16], []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
			}
		case payload.PcapngIDB:
			fixed = 8
			if len(body) >= 2 {
				links = append(links, uint32(order.Uint16(body)))
			}
		case payload.PcapngEPB, payload.PcapngOPB:
			id, pkt, err := payload.PcapngPacket(payload.PcapngBlock{Off: blk.Off, Type: typ, Order: order, Body: body})
			if err != nil {
				return err
			}
			if id >= len(links) {
				// No interface describes it: its bytes cannot be read,
				// so they are not kept.
				return nil
			}
			a.frame(pkt, links[id])
			fixed = 20 + (len(pkt)+3)/4*4
		case payload.PcapngSPB:
			if len(links) > 0 && len(body) > 4 {
				a.frame(body[4:], links[0])
			}
			fixed = len(body)
		default:
			return nil // left out
		}
		fixed = min(fixed, len(body))
		body = append(body[:fixed:fixed], options(body[fixed:], order, keptOptions[typ])...)
		total := len(body) + 12
		var hdr [8]byte
		if typ == payload.PcapngSHB {
			binary.LittleEndian.PutUint32(hdr[0:], typ)
		} else {
			order.PutUint32(hdr[0:], typ)
		}
		order.PutUint32(hdr[4:], uint32(total))
		out = append(out, hdr[:]...)
		out = append(out, body...)
		out = append(out, hdr[4:8]...) // the trailing length
		return nil
	})
	if err != nil {
		return nil, err
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
