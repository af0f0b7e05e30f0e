package etl

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// A WMI_BUFFER_HEADER opens every buffer of the file:
//
//	0x00 BufferSize u32     bytes the buffer occupies in the file
//	0x04 SavedOffset u32    bytes of valid data, header included (inflated size when compressed)
//	0x08 CurrentOffset u32
//	0x10 TimeStamp u64
//	0x28 ProcessorIndex u16, LoggerId u16
//	0x30 Offset u32         filled bytes; past SavedOffset in buffer 0
//	0x34 BufferFlag u16     0x40 compressed
//	0x36 BufferType u16     4 the header buffer, 0 generic
const (
	bufferHeaderSize = 0x48
	flagCompressed   = 0x40
	bufferTypeHeader = 4
)

type bufferHeader struct {
	size, saved, filled uint32
	flags, typ          uint16
	processor           uint16
}

func parseBufferHeader(b []byte) bufferHeader {
	return bufferHeader{
		size:      binary.LittleEndian.Uint32(b[0:]),
		saved:     binary.LittleEndian.Uint32(b[4:]),
		processor: binary.LittleEndian.Uint16(b[0x28:]),
		filled:    binary.LittleEndian.Uint32(b[0x30:]),
		flags:     binary.LittleEndian.Uint16(b[0x34:]),
		typ:       binary.LittleEndian.Uint16(b[0x36:]),
	}
}

// buffers reads the file one buffer at a time, inflating the compressed
// ones; it holds one buffer (and its inflated copy) in memory.
type buffers struct {
	r       io.Reader
	maxSize int
	off     int64 // file offset of the next buffer
	index   int   // buffers read
	raw     []byte
	body    []byte // inflated
	data    []byte // header and inflated body

	compressed, compressedBytes, inflatedBytes int64
}

// errCut is a buffer the file ends inside; errDamaged one whose header
// or compressed data is impossible.
var (
	errCut     = errors.New("cut")
	errDamaged = errors.New("damaged")
)

// bufferError says which buffer stopped the reading, and why.
type bufferError struct {
	kind   error // errCut or errDamaged
	index  int
	at     int64
	reason string
}

func (e *bufferError) Error() string {
	return fmt.Sprintf("buffer %d at byte %d: %s", e.index, e.at, e.reason)
}
func (e *bufferError) Unwrap() error { return e.kind }

// next returns the valid bytes of the next buffer, header included, and
// its header; io.EOF at the end of the file.
func (b *buffers) next() ([]byte, bufferHeader, error) {
	var h bufferHeader
	if cap(b.raw) < bufferHeaderSize {
		b.raw = make([]byte, bufferHeaderSize, 64<<10)
	}
	b.raw = b.raw[:bufferHeaderSize]
	n, err := io.ReadFull(b.r, b.raw)
	if err == io.EOF {
		return nil, h, io.EOF
	}
	at := b.off
	if err == io.ErrUnexpectedEOF {
		return nil, h, &bufferError{errCut, b.index, at, fmt.Sprintf("the file ends %d bytes into its %d-byte header", n, bufferHeaderSize)}
	}
	if err != nil {
		return nil, h, err
	}
	h = parseBufferHeader(b.raw)
	switch {
	case h.size == 0xFFFFFFFF && h.saved == 0xFFFFFFFF:
		// Preallocated space never written (a circular or preallocated log).
		return nil, h, io.EOF
	case h.size < bufferHeaderSize || int64(h.size) > int64(b.maxSize):
		return nil, h, &bufferError{errDamaged, b.index, at, fmt.Sprintf("its header gives a size of %d bytes, not between %d and %d", h.size, bufferHeaderSize, b.maxSize)}
	case h.saved < bufferHeaderSize || int64(h.saved) > int64(b.maxSize):
		return nil, h, &bufferError{errDamaged, b.index, at, fmt.Sprintf("its header gives %d bytes of data, not between %d and %d", h.saved, bufferHeaderSize, b.maxSize)}
	}
	// Read what the file has, growing with it: a header claiming a large
	// buffer in a short file costs no more than the file.
	b.raw, err = readGrow(b.r, b.raw, int(h.size)-bufferHeaderSize)
	if err != nil {
		if err == io.ErrUnexpectedEOF || err == io.EOF {
			return nil, h, &bufferError{errCut, b.index, at, fmt.Sprintf("it is %d bytes long and the file ends at byte %d", h.size, at+int64(len(b.raw)))}
		}
		return nil, h, err
	}
	b.off += int64(h.size)
	b.index++
	if h.flags&flagCompressed == 0 {
		end := int(h.saved)
		// Buffer 0 holds records past SavedOffset, up to its filled bytes.
		if f := int(h.filled); f > end && f <= len(b.raw) {
			end = f
		}
		if end > len(b.raw) {
			return nil, h, &bufferError{errDamaged, b.index - 1, at, fmt.Sprintf("its header gives %d bytes of data in a %d-byte buffer", end, len(b.raw))}
		}
		return b.raw[:end], h, nil
	}
	b.compressed++
	b.compressedBytes += int64(h.size)
	body, err := inflate(b.body, b.raw[bufferHeaderSize:], int(h.saved)-bufferHeaderSize)
	b.body = body
	if err != nil {
		return nil, h, &bufferError{errDamaged, b.index - 1, at, err.Error()}
	}
	b.inflatedBytes += int64(h.saved)
	b.data = append(append(b.data[:0], b.raw[:bufferHeaderSize]...), body...)
	return b.data, h, nil
}

// readGrow appends n bytes from r to b, growing b in steps so that a
// short file never costs the size a header claims.
func readGrow(r io.Reader, b []byte, n int) ([]byte, error) {
	for n > 0 {
		step := n
		if step > 1<<20 {
			step = 1 << 20
		}
		l := len(b)
		if cap(b)-l < step {
			nb := make([]byte, l, l+max(step, l))
			copy(nb, b)
			b = nb
		}
		b = b[:l+step]
		got, err := io.ReadFull(r, b[l:])
		b = b[:l+got]
		if err != nil {
			return b, err
		}
		n -= step
	}
	return b, nil
}
