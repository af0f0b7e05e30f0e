package collectors

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"

	"github.com/wincni/diag/bundle"
	"github.com/wincni/diag/collectors/redact"
)

// ErrBinary is returned by RedactText for data that is not text: it cannot
// be redacted safely, so it is not stored.
var ErrBinary = errors.New("binary data, not stored (it cannot be redacted)")

// RedactText is what happens to every text file before it goes into a
// bundle, in diag collect and in diag bundle redact alike: UTF-16 (PowerShell's
// redirections write it with a byte order mark, cmd /u without) becomes UTF-8 so that
// redaction can read it, binary data is refused with ErrBinary, and secrets
// are replaced. The marks say per kind how many values were removed, never
// the values.
func RedactText(data []byte) ([]byte, []bundle.Redaction, error) {
	data = ToUTF8(data)
	if redact.IsBinary(data) {
		return nil, nil, ErrBinary
	}
	clean, counts := redact.Text(data)
	var marks []bundle.Redaction
	for _, c := range counts {
		marks = append(marks, bundle.Redaction{Kind: c.Kind, Count: c.Count})
	}
	return clean, marks, nil
}

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

// MaxRedactEntry bounds one text entry diag bundle redact redacts.
var MaxRedactEntry int64 = 128 << 20

// RedactEntry is the bundle.Filter of diag bundle redact, following what
// collect does with each kind of file: a packet capture is kept whole,
// other binary or compressed data is left out (it cannot be redacted), and
// text is redacted with RedactText.
func RedactEntry(e *bundle.RewriteEntry) (bundle.Outcome, error) {
	if IsCapture(e.Head) {
		return bundle.Outcome{Action: bundle.Copy}, nil
	}
	// Decide binary data from its first bytes, before reading it all: a
	// 1 GB ETL trace need not be read to be left out. UTF-16 text, with a
	// byte order mark or without, has NUL bytes: RedactText transcodes it.
	if !redact.LooksUTF16(e.Head) && redact.IsBinary(e.Head) {
		return bundle.Outcome{Action: bundle.Omit, Reason: "binary or compressed, left out (it cannot be redacted)"}, nil
	}
	// A text entry is redacted in memory (with the copy, about three
	// times its size): a larger one is left out rather than carried
	// unredacted or read without bound.
	if e.Size > MaxRedactEntry {
		return bundle.Outcome{Action: bundle.Omit, Reason: fmt.Sprintf("text of %d MiB, over the %d MiB that bundle redact reads at once, left out (not redacted)", e.Size>>20, MaxRedactEntry>>20)}, nil
	}
	data, err := e.ReadAll()
	if err != nil {
		return bundle.Outcome{}, err
	}
	if int64(len(data)) > MaxRedactEntry {
		return bundle.Outcome{Action: bundle.Omit, Reason: fmt.Sprintf("text over the %d MiB that bundle redact reads at once, left out (not redacted)", MaxRedactEntry>>20)}, nil
	}
	clean, marks, err := RedactText(data)
	if errors.Is(err, ErrBinary) {
		return bundle.Outcome{Action: bundle.Omit, Reason: "binary or compressed, left out (it cannot be redacted)"}, nil
	}
	if err != nil {
		return bundle.Outcome{}, fmt.Errorf("%s: %w", e.Name, err)
	}
	return bundle.Outcome{Action: bundle.Replace, Data: clean, Redacted: marks}, nil
}
