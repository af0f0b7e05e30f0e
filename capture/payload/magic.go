package payload

import (
	"bytes"
	"compress/gzip"
	"io"
	"slices"

	"github.com/wincni/diag/capture/wire"
)

// IsCapture says whether head, the first bytes of a file, starts a packet
// capture diag reads: pcap (either byte order, micro- or nanoseconds),
// pcapng, or a gzip'd pcap or pcapng. Captures are kept whole, not
// redacted, as collect keeps its own.
func IsCapture(head []byte) bool {
	if captureMagic(head) {
		return true
	}
	if len(head) < 2 || [2]byte(head[:2]) != wire.MagicGzip {
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
	m := [4]byte(b[:4])
	return m == wire.MagicPcapng || slices.Contains(wire.MagicsPcap[:], m)
}
