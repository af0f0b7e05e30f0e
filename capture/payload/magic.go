package payload

import (
	"bytes"
	"compress/gzip"
	"io"
)

// IsCapture says whether head, the first bytes of a file, starts a packet
// capture diag reads: pcap (either byte order, micro- or nanoseconds),
// pcapng, or a gzip'd pcap or pcapng. Captures are kept whole, not
// redacted, as collect keeps its own.
func IsCapture(head []byte) bool {
	if captureMagic(head) {
		return true
	}
	if len(head) < 2 || head[0] != 0x1f || head[1] != 0x8b {
		return false
	}
	// Inflate only the first bytes of the gzip stream: a bomb cannot grow here.
	zr, err := gzip.NewReader(bytes.NewReader(head))
	if err != nil {
		return false
	}
	var inner [4]byte
	if _, err := io.ReadFull(zr, inner[:]); err != nil {
		return false
	}
	return captureMagic(inner[:])
}

func captureMagic(b []byte) bool {
	if len(b) < 4 {
		return false
	}
	for _, m := range [][]byte{{0x0a, 0x0d, 0x0d, 0x0a}, {0xd4, 0xc3, 0xb2, 0xa1}, {0xa1, 0xb2, 0xc3, 0xd4}, {0x4d, 0x3c, 0xb2, 0xa1}, {0xa1, 0xb2, 0x3c, 0x4d}} {
		if bytes.Equal(b[:4], m) {
			return true
		}
	}
	return false
}
