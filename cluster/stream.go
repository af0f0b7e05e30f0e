package cluster

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"strings"
)

// The bundle travels over a pod's exec stdout in frames, so that a cut,
// a corrupted chunk or text mixed into the stream is found on arrival and
// named, not taken for a bundle:
//
//	"DIAGSTREAM1\n"
//	'C' len:uint32 data[len] crc32c(data):uint32     one per chunk
//	'E' total:uint64 sha256(all data)[32]           once, at the end
//
// Integers are big-endian. Nothing bounds the total but the reader's
// limit; a chunk is at most maxChunk bytes.
const (
	streamMagic = "DIAGSTREAM1\n"
	maxChunk    = 1 << 20
	frameChunk  = 'C'
	frameEnd    = 'E'
)

// castagnoli is the CRC-32C table. Not a package variable: building it
// (the SSE4.2 shift tables) costs every diag command a millisecond-scale
// share of its start, and only the cluster stream needs it. crc32 builds
// it once, on the first call.
func castagnoli() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) }

// WriteStream frames what r holds onto w.
func WriteStream(w io.Writer, r io.Reader) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	if _, err := bw.WriteString(streamMagic); err != nil {
		return err
	}
	sum := sha256.New()
	buf := make([]byte, 256<<10)
	var total uint64
	var hdr [5]byte
	var tail [4]byte
	for {
		n, err := io.ReadFull(r, buf)
		if n > 0 {
			hdr[0] = frameChunk
			binary.BigEndian.PutUint32(hdr[1:], uint32(n))
			binary.BigEndian.PutUint32(tail[:], crc32.Checksum(buf[:n], castagnoli()))
			sum.Write(buf[:n])
			total += uint64(n)
			for _, b := range [][]byte{hdr[:], buf[:n], tail[:]} {
				if _, err := bw.Write(b); err != nil {
					return err
				}
			}
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return fmt.Errorf("read the bundle: %w", err)
		}
	}
	var end [9]byte
	end[0] = frameEnd
	binary.BigEndian.PutUint64(end[1:], total)
	if _, err := bw.Write(end[:]); err != nil {
		return err
	}
	if _, err := bw.Write(sum.Sum(nil)); err != nil {
		return err
	}
	return bw.Flush()
}

// StreamError says how a stream failed: cut short, corrupted, too large or
// not a stream at all. Received is how many bundle bytes arrived intact.
type StreamError struct {
	Kind     string // "cut", "corrupt", "too large", "not a stream"
	Received int64
	Detail   string
}

func (e *StreamError) Error() string {
	if e.Kind == "too large" {
		return "bundle too large: " + e.Detail
	}
	return fmt.Sprintf("bundle stream %s after %d bytes: %s", e.Kind, e.Received, e.Detail)
}

// ReadStream checks a framed stream and writes the bundle's bytes to w; it
// reads at most limit bundle bytes. It returns the bundle's size.
func ReadStream(r io.Reader, w io.Writer, limit int64) (int64, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var got int64
	fail := func(kind, format string, args ...any) (int64, error) {
		return got, &StreamError{Kind: kind, Received: got, Detail: fmt.Sprintf(format, args...)}
	}
	cut := func(err error, what string) (int64, error) {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return fail("cut", "the stream ended inside %s", what)
		}
		return got, fmt.Errorf("read the bundle stream: %w", err)
	}
	magic := make([]byte, len(streamMagic))
	if n, err := io.ReadFull(br, magic); err != nil {
		if n == 0 && errors.Is(err, io.EOF) {
			return fail("cut", "nothing arrived")
		}
		if string(magic[:n]) != streamMagic[:n] {
			return fail("not a stream", "the pod printed %q instead", strings.TrimSpace(strings.ToValidUTF8(string(magic[:n]), "?")))
		}
		return cut(err, "its header")
	}
	if string(magic) != streamMagic {
		// Show what the pod printed instead: an error message, most often.
		more, _ := br.Peek(min(200, br.Buffered())) // what has come: a short message may be all there is
		text := strings.TrimSpace(strings.ToValidUTF8(string(magic)+string(more), "?"))
		if i := strings.IndexAny(text, "\r\n"); i > 0 {
			text = text[:i]
		}
		return fail("not a stream", "the pod printed %q instead (an error, or an older diag without --stream)", text)
	}
	sum := sha256.New()
	buf := make([]byte, maxChunk)
	for chunk := 0; ; chunk++ {
		kind, err := br.ReadByte()
		if err != nil {
			return cut(err, "a frame header")
		}
		switch kind {
		case frameChunk:
			var hdr [4]byte
			if _, err := io.ReadFull(br, hdr[:]); err != nil {
				return cut(err, fmt.Sprintf("chunk %d's header", chunk))
			}
			n := int64(binary.BigEndian.Uint32(hdr[:]))
			if n == 0 || n > maxChunk {
				return fail("corrupt", "chunk %d claims %d bytes (at most %d)", chunk, n, maxChunk)
			}
			if got+n > limit {
				return fail("too large", "%d bytes had arrived and the next chunk holds %d more, over the limit of %d bytes (--max-bundle-size); the transfer was stopped", got, n, limit)
			}
			if _, err := io.ReadFull(br, buf[:n]); err != nil {
				return cut(err, fmt.Sprintf("chunk %d", chunk))
			}
			var crc [4]byte
			if _, err := io.ReadFull(br, crc[:]); err != nil {
				return cut(err, fmt.Sprintf("chunk %d's checksum", chunk))
			}
			if crc32.Checksum(buf[:n], castagnoli()) != binary.BigEndian.Uint32(crc[:]) {
				return fail("corrupt", "chunk %d (%d bytes) fails its checksum", chunk, n)
			}
			if _, err := w.Write(buf[:n]); err != nil {
				return got, fmt.Errorf("write the bundle: %w", err)
			}
			sum.Write(buf[:n])
			got += n
		case frameEnd:
			var end [8 + sha256.Size]byte
			if _, err := io.ReadFull(br, end[:]); err != nil {
				return cut(err, "the end frame")
			}
			if total := int64(binary.BigEndian.Uint64(end[:8])); total != got {
				return fail("corrupt", "the end frame counts %d bytes, %d arrived", total, got)
			}
			if string(sum.Sum(nil)) != string(end[8:]) {
				return fail("corrupt", "the bundle's SHA-256 differs from the sender's")
			}
			return got, nil
		default:
			return fail("corrupt", "frame %d has kind %#x", chunk, kind)
		}
	}
}
