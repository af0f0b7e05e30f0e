package redact

import (
	"errors"
	"fmt"

	"github.com/wincni/diag/bundle"
	"github.com/wincni/diag/capture/payload"
	"github.com/wincni/diag/manifest"
)

// ErrBinary is returned by File for data that is not text: it cannot
// be redacted safely, so it is not stored.
var ErrBinary = errors.New("binary data, not stored (it cannot be redacted)")

// File is what happens to every text file before it goes into a
// bundle, in diag collect and in diag bundle redact alike: UTF-16 (PowerShell's
// redirections write it with a byte order mark, cmd /u without) becomes UTF-8 so that
// redaction can read it, binary data is refused with ErrBinary, and secrets
// are replaced. The marks say per kind how many values were removed, never
// the values.
func File(data []byte) ([]byte, []manifest.Redaction, error) {
	data = Decode(data)
	if IsBinary(data) {
		return nil, nil, ErrBinary
	}
	clean, counts := Text(data)
	var marks []manifest.Redaction
	for _, c := range counts {
		marks = append(marks, manifest.Redaction{Kind: c.Kind, Count: c.Count})
	}
	return clean, marks, nil
}

// MaxEntry bounds one text entry diag bundle redact redacts.
var MaxEntry int64 = 128 << 20

// Entry is the bundle.Filter of diag bundle redact, following what
// collect does with each kind of file: a packet capture is kept whole,
// other binary or compressed data is left out (it cannot be redacted), and
// text is redacted with File.
func Entry(e *bundle.RewriteEntry) (bundle.Outcome, error) {
	if payload.IsCapture(e.Head) {
		return bundle.Outcome{Action: bundle.Copy}, nil
	}
	// Decide binary data from its first bytes, before reading it all: a
	// 1 GB ETL trace need not be read to be left out. UTF-16 text, with a
	// byte order mark or without, has NUL bytes: File transcodes it.
	if !LooksUTF16(e.Head) && IsBinary(e.Head) {
		return bundle.Outcome{Action: bundle.Omit, Reason: "binary or compressed, left out (it cannot be redacted)"}, nil
	}
	// A text entry is redacted in memory (with the copy, about three
	// times its size): a larger one is left out rather than carried
	// unredacted or read without bound.
	if e.Size > MaxEntry {
		return bundle.Outcome{Action: bundle.Omit, Reason: fmt.Sprintf("text of %d MiB, over the %d MiB that bundle redact reads at once, left out (not redacted)", e.Size>>20, MaxEntry>>20)}, nil
	}
	data, err := e.ReadAll()
	if err != nil {
		return bundle.Outcome{}, err
	}
	if int64(len(data)) > MaxEntry {
		return bundle.Outcome{Action: bundle.Omit, Reason: fmt.Sprintf("text over the %d MiB that bundle redact reads at once, left out (not redacted)", MaxEntry>>20)}, nil
	}
	clean, marks, err := File(data)
	if errors.Is(err, ErrBinary) {
		return bundle.Outcome{Action: bundle.Omit, Reason: "binary or compressed, left out (it cannot be redacted)"}, nil
	}
	if err != nil {
		return bundle.Outcome{}, fmt.Errorf("%s: %w", e.Name, err)
	}
	return bundle.Outcome{Action: bundle.Replace, Data: clean, Redacted: marks}, nil
}
