package capture

import (
	"bufio"
	"encoding/binary"
	"io"
	"time"
)

// ngWriter writes a little-endian pcapng section with one interface whose
// timestamps are in nanoseconds: what diag capture start needs, without
// gopacket's pcapgo (whose package tables cost every diag command memory
// at start).
type ngWriter struct {
	w   *bufio.Writer
	buf []byte
}

func newNgWriter(out io.Writer, ifName string, link LinkType, snaplen uint32, app string) (*ngWriter, error) {
	w, err := newNgSection(out, app)
	if err != nil {
		return nil, err
	}
	idb := binary.LittleEndian.AppendUint16(nil, uint16(link))
	idb = binary.LittleEndian.AppendUint16(idb, 0)
	idb = binary.LittleEndian.AppendUint32(idb, snaplen)
	idb = appendOption(idb, 2, []byte(ifName)) // if_name
	idb = appendOption(idb, 9, []byte{9})      // if_tsresol: 10^-9 s
	idb = appendOption(idb, 0, nil)
	if err := w.block(1, idb); err != nil {
		return nil, err
	}
	return w, nil
}

// WritePacket writes one enhanced packet block.
func (w *ngWriter) WritePacket(ts time.Time, data []byte, wireLen int) error {
	ns := uint64(ts.UnixNano())
	b := w.buf[:0]
	b = binary.LittleEndian.AppendUint32(b, 0) // interface 0
	b = binary.LittleEndian.AppendUint32(b, uint32(ns>>32))
	b = binary.LittleEndian.AppendUint32(b, uint32(ns))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(data)))
	b = binary.LittleEndian.AppendUint32(b, uint32(wireLen))
	b = append(b, data...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	w.buf = b
	return w.block(6, b)
}

func (w *ngWriter) Flush() error { return w.w.Flush() }

// block writes type, total length, body (a multiple of 4 bytes), length.
func (w *ngWriter) block(typ uint32, body []byte) error {
	var hdr [8]byte
	total := uint32(len(body) + 12)
	binary.LittleEndian.PutUint32(hdr[0:], typ)
	binary.LittleEndian.PutUint32(hdr[4:], total)
	w.w.Write(hdr[:])
	w.w.Write(body)
	_, err := w.w.Write(hdr[4:8])
	return err
}

// appendOption appends a pcapng option, padded to 4 bytes.
func appendOption(b []byte, code uint16, v []byte) []byte {
	b = binary.LittleEndian.AppendUint16(b, code)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(v)))
	b = append(b, v...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}
