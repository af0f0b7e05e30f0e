package etl

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
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
	r         io.Reader
	maxSize   int
	off       int64      // file offset of the next buffer
	index     int        // buffers read
	raw       []byte     // the buffer as read; handed over when not compressed
	mu        sync.Mutex // the pool is shared with the reader's prefetch
	pool      [][]byte   // buffers handed back by the reader, for reuse
	pooled    int        // their bytes, at most maxPooled
	maxPooled int
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
// get returns a slice of capacity n or more from the pool, else a new one
// of capacity alloc or more.
func (b *buffers) get(n, alloc int) []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i := len(b.pool) - 1; i >= 0; i-- {
		if s := b.pool[i]; cap(s) >= n {
			b.pool[i] = b.pool[len(b.pool)-1]
			b.pool = b.pool[:len(b.pool)-1]
			b.pooled -= cap(s)
			return s[:0]
		}
	}
	// A power of two, so that a pooled buffer serves the next of about
	// the same size.
	c := 64 << 10
	for c < alloc {
		c <<= 1
	}
	return make([]byte, 0, c)
}

// put hands a buffer next returned back for reuse.
func (b *buffers) put(s []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.pooled+cap(s) <= b.maxPooled {
		b.pool = append(b.pool, s)
		b.pooled += cap(s)
	}
}

// next returns the valid bytes of the next buffer, header included (a
// compressed one inflated): the caller owns them, and may hand them back
// with put. io.EOF at the end of the file.
func (b *buffers) next() ([]byte, bufferHeader, error) {
	var h bufferHeader
	if cap(b.raw) < bufferHeaderSize {
		b.raw = b.get(64<<10, 64<<10)
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
		out := b.raw[:end]
		b.raw = nil
		return out, h, nil
	}
	// Inflate after a copy of the header: the records keep their offsets
	// in the buffer.
	// A pooled buffer is reused when one is large enough; else inflate
	// grows its own as it writes.
	out := append(b.get(int(h.saved), min(int(h.saved), 16*len(b.raw)+4096)), b.raw[:bufferHeaderSize]...)
	out, err = inflate(out, b.raw[bufferHeaderSize:], int(h.saved)-bufferHeaderSize)
	if err != nil {
		b.put(out)
		return nil, h, &bufferError{errDamaged, b.index - 1, at, err.Error()}
	}
	return out, h, nil
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
