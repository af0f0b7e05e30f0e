package bundle

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/wincni/diag/manifest"
)

// Action is what Rewrite does with one entry of its input.
type Action int

const (
	// Copy keeps the entry unchanged; it is streamed, never held in memory.
	Copy Action = iota
	// Replace writes Outcome.Data instead of the entry.
	Replace
	// Omit leaves the entry out; Outcome.Reason says why.
	Omit
)

// Outcome is a Filter's decision about one entry.
type Outcome struct {
	Action   Action
	Data     []byte               // Replace: the new content
	Redacted []manifest.Redaction // Replace: what was removed, recorded in the manifest
	Reason   string               // Omit: why, for the user
	Name     string               // Replace: the entry's new name, when it changes (anonymize maps host names in file names)
}

// RewriteHead is how many bytes of an entry a Filter sees before it decides
// whether to read the rest.
const RewriteHead = 8192

// RewriteEntry is one entry of the input as a Filter sees it: its name, its
// first bytes, and the rest on demand (read within the input's limits).
type RewriteEntry struct {
	Name string
	Size int64  // as the input declares it
	Head []byte // the first RewriteHead bytes (fewer when the entry is shorter)

	rest io.Reader
	all  []byte
	read bool
}

// ReadAll returns the whole entry, Head included.
func (e *RewriteEntry) ReadAll() ([]byte, error) {
	if e.read {
		return e.all, nil
	}
	rest, err := io.ReadAll(e.rest)
	if err != nil {
		return nil, err
	}
	e.all = append(append(make([]byte, 0, len(e.Head)+len(rest)), e.Head...), rest...)
	e.read = true
	return e.all, nil
}

// Filter decides what a rewritten bundle holds for one entry.
type Filter func(e *RewriteEntry) (Outcome, error)

// Omission is an entry Rewrite left out, and why.
type Omission struct {
	Path   string
	Reason string
}

// RewriteResult is what Rewrite wrote.
type RewriteResult struct {
	Files    []manifest.FileEntry // entries written, sorted, with what was removed from each (Size and SHA256 are not set)
	Omitted  []Omission           // entries left out, sorted
	Redacted []manifest.Redaction // totals over every entry, sorted by kind
}

// Rewrite copies every entry of in through filter into w, except
// manifest.json (w writes a fresh one). An entry the input's manifest marks
// truncated stays marked. It stops at the first error, or when ctx is
// done; the caller then aborts w. A problem reading the input is a *Error.
func Rewrite(ctx context.Context, in *Bundle, w *Writer, filter Filter) (*RewriteResult, error) {
	res := &RewriteResult{}
	totals := map[string]int{}
	for _, name := range in.Names() {
		if name == ManifestPath {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out, err := rewriteOne(ctx, in, w, name, filter)
		if err != nil {
			return nil, err
		}
		if out.Action == Omit {
			res.Omitted = append(res.Omitted, Omission{Path: name, Reason: out.Reason})
			continue
		}
		written := name
		if out.Name != "" {
			written = out.Name
		}
		truncated := false
		if in.Manifest != nil {
			if fe, ok := in.Manifest.File(name); ok {
				truncated = fe.Truncated
			}
		}
		if truncated || len(out.Redacted) > 0 {
			if err := w.MarkEntry(written, truncated, out.Redacted); err != nil {
				return nil, err
			}
		}
		for _, r := range out.Redacted {
			totals[r.Kind] += r.Count
		}
		res.Files = append(res.Files, manifest.FileEntry{Path: written, Redacted: out.Redacted, Truncated: truncated})
	}
	for k, n := range totals {
		res.Redacted = append(res.Redacted, manifest.Redaction{Kind: k, Count: n})
	}
	sort.Slice(res.Redacted, func(i, j int) bool { return res.Redacted[i].Kind < res.Redacted[j].Kind })
	return res, nil
}

func rewriteOne(ctx context.Context, in *Bundle, w *Writer, name string, filter Filter) (Outcome, error) {
	rc, err := in.Open(name)
	if err != nil {
		return Outcome{}, err
	}
	defer rc.Close()
	r := &ctxReader{ctx: ctx, r: rc}
	head := make([]byte, RewriteHead)
	n, err := io.ReadFull(r, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return Outcome{}, err
	}
	e := &RewriteEntry{Name: name, Size: in.Size(name), Head: head[:n], rest: r}
	out, err := filter(e)
	if err != nil {
		return Outcome{}, err
	}
	switch out.Action {
	case Omit:
		return out, nil
	case Replace:
		if out.Name != "" {
			return out, w.WriteFile(out.Name, out.Data)
		}
		return out, w.WriteFile(name, out.Data)
	case Copy:
		var src io.Reader = io.MultiReader(bytes.NewReader(e.Head), r)
		if e.read {
			src = bytes.NewReader(e.all)
		}
		ew, err := w.Create(name)
		if err != nil {
			return Outcome{}, err
		}
		if _, err := io.Copy(ew, src); err != nil {
			ew.Abort()
			return Outcome{}, err
		}
		return Outcome{Action: Copy}, ew.Close()
	}
	return Outcome{}, fmt.Errorf("entry %q: unknown rewrite action %d", name, out.Action)
}

// ctxReader stops a long copy when ctx is done (Ctrl-C).
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
