package bundle

import (
	"archive/zip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"time"
)

// Writer builds a bundle. Entries are staged as files in a private temporary
// directory (each written as .partial and renamed when complete), so that
// collectors can write concurrently and a collector that dies mid-write
// leaves no half entry. Close zips the staged entries into a temporary file
// next to the output and renames it into place only when it is complete.
type Writer struct {
	out      string
	staging  string
	manifest Manifest
	now      func() time.Time

	mu        sync.Mutex
	files     map[string]*FileEntry
	staged    map[string]string // entry name → its staged file
	seq       int
	open      map[string]bool
	closed    bool
	noReplace bool
}

// Create starts a bundle that will be written to out. The manifest's Format,
// Version and Files are filled in by the writer.
func Create(out string, m Manifest) (*Writer, error) {
	staging, err := os.MkdirTemp("", "diag-bundle-")
	if err != nil {
		return nil, fmt.Errorf("create staging directory: %w", err)
	}
	return &Writer{
		out:      out,
		staging:  staging,
		manifest: m,
		now:      time.Now,
		files:    map[string]*FileEntry{},
		staged:   map[string]string{},
		open:     map[string]bool{},
	}, nil
}

// EntryWriter writes one entry. Close commits it; Abort discards it.
type EntryWriter struct {
	w       *Writer
	name    string
	f       *os.File
	h       hash.Hash
	n       int64
	partial string
	final   string
	done    bool
}

// Create opens a new entry. Names are slash-separated, relative and unique.
func (w *Writer) Create(name string) (*EntryWriter, error) {
	if err := ValidName(name); err != nil {
		return nil, fmt.Errorf("entry %q: %w", name, err)
	}
	if name == ManifestPath {
		return nil, fmt.Errorf("entry %q is written by the bundle writer", name)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil, errors.New("bundle writer is closed")
	}
	if _, dup := w.files[name]; dup || w.open[name] {
		return nil, fmt.Errorf("entry %q written twice", name)
	}
	// Staged under a number, never under the entry's name: on Windows
	// logs/Kubelet.log and logs/kubelet.log are one file, and nul.txt or
	// com1.log are devices, whatever the bundle says.
	w.seq++
	final := filepath.Join(w.staging, strconv.Itoa(w.seq))
	partial := final + ".partial"
	f, err := os.OpenFile(partial, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("entry %q: %w", name, err)
	}
	w.open[name] = true
	return &EntryWriter{w: w, name: name, f: f, h: sha256.New(), partial: partial, final: final}, nil
}

func (e *EntryWriter) Write(p []byte) (int, error) {
	n, err := e.f.Write(p)
	e.h.Write(p[:n])
	e.n += int64(n)
	return n, err
}

// Close commits the entry.
func (e *EntryWriter) Close() error {
	if e.done {
		return nil
	}
	e.done = true
	err := e.f.Close()
	if err == nil {
		err = os.Rename(e.partial, e.final)
	}
	e.w.mu.Lock()
	defer e.w.mu.Unlock()
	delete(e.w.open, e.name)
	if err != nil {
		os.Remove(e.partial)
		return fmt.Errorf("entry %q: %w", e.name, err)
	}
	e.w.files[e.name] = &FileEntry{Path: e.name, Size: e.n, SHA256: hex.EncodeToString(e.h.Sum(nil))}
	e.w.staged[e.name] = e.final
	return nil
}

// Abort discards the entry.
func (e *EntryWriter) Abort() {
	if e.done {
		return
	}
	e.done = true
	e.f.Close()
	os.Remove(e.partial)
	e.w.mu.Lock()
	delete(e.w.open, e.name)
	e.w.mu.Unlock()
}

// WriteFile adds a whole entry.
func (w *Writer) WriteFile(name string, data []byte) error {
	e, err := w.Create(name)
	if err != nil {
		return err
	}
	if _, err := e.Write(data); err != nil {
		e.Abort()
		return fmt.Errorf("entry %q: %w", name, err)
	}
	return e.Close()
}

// MarkEntry records redactions or truncation of a committed entry.
func (w *Writer) MarkEntry(name string, truncated bool, redacted []Redaction) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	fe, ok := w.files[name]
	if !ok {
		return fmt.Errorf("entry %q not written", name)
	}
	fe.Truncated = fe.Truncated || truncated
	fe.Redacted = append(fe.Redacted, redacted...)
	return nil
}

// NoReplace makes Close refuse to replace a file that exists at the output
// path when the bundle is moved into place: Close then fails with an error
// that matches fs.ErrExist and leaves that file alone. The sidecar
// <out>.sha256 belongs to the zip and is replaced.
func (w *Writer) NoReplace() {
	w.mu.Lock()
	w.noReplace = true
	w.mu.Unlock()
}

// SetFinished records when collection ended.
func (w *Writer) SetFinished(t time.Time) {
	w.mu.Lock()
	w.manifest.Finished = &t
	w.mu.Unlock()
}

// AddCollector records a collector's outcome in the manifest.
func (w *Writer) AddCollector(r CollectorResult) {
	w.mu.Lock()
	w.manifest.Collectors = append(w.manifest.Collectors, r)
	w.mu.Unlock()
}

// Close writes manifest.json, zips everything into place atomically, writes
// the sidecar checksum file and removes the staging directory. It returns the
// SHA-256 of the zip. On error nothing is left at the output path; when
// only the last step failed, replacing an existing file, the bundle is kept
// beside it (a *KeptError says where).
func (w *Writer) Close() (string, error) {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return "", errors.New("bundle writer already closed")
	}
	w.closed = true
	pending := len(w.open)
	noReplace := w.noReplace
	staged := w.staged
	w.mu.Unlock()
	defer os.RemoveAll(w.staging)
	if pending > 0 {
		return "", fmt.Errorf("%d entries still open", pending)
	}

	m := w.manifest
	m.Format, m.Version = Format, Version
	m.Files = make([]FileEntry, 0, len(w.files))
	for _, fe := range w.files {
		m.Files = append(m.Files, *fe)
	}
	sort.Slice(m.Files, func(i, j int) bool { return m.Files[i].Path < m.Files[j].Path })
	sort.Slice(m.Collectors, func(i, j int) bool { return m.Collectors[i].ID < m.Collectors[j].ID })
	manifest, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return "", fmt.Errorf("encode manifest: %w", err)
	}

	modified := w.now()
	if m.Finished != nil {
		modified = *m.Finished
	}
	sum, err := writeAtomicMode(w.out, noReplace, true, func(f io.Writer) error {
		zw := zip.NewWriter(f)
		if err := addZipEntry(zw, ManifestPath, modified, func(dst io.Writer) error {
			_, err := dst.Write(append(manifest, '\n'))
			return err
		}); err != nil {
			return err
		}
		for _, fe := range m.Files {
			src := staged[fe.Path]
			if err := addZipEntry(zw, fe.Path, modified, func(dst io.Writer) error {
				in, err := os.Open(src)
				if err != nil {
					return err
				}
				defer in.Close()
				_, err = io.Copy(dst, in)
				return err
			}); err != nil {
				return err
			}
		}
		return zw.Close()
	})
	var kept *KeptError
	if errors.As(err, &kept) {
		// The kept bundle gets its own sidecar, so that bundle verify
		// checks it as it would the output.
		writeAtomic(kept.Kept+".sha256", func(f io.Writer) error {
			_, err := fmt.Fprintf(f, "%s  %s\n", sum, filepath.Base(kept.Kept))
			return err
		})
		return "", kept
	}
	if err != nil {
		return "", fmt.Errorf("write %s: %w", w.out, err)
	}
	sidecar := fmt.Sprintf("%s  %s\n", sum, filepath.Base(w.out))
	if _, err := writeAtomic(w.out+".sha256", func(f io.Writer) error {
		_, err := io.WriteString(f, sidecar)
		return err
	}); err != nil {
		return "", fmt.Errorf("write %s.sha256: %w", w.out, err)
	}
	return sum, nil
}

// Abort discards everything written so far.
func (w *Writer) Abort() {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	os.RemoveAll(w.staging)
}

func addZipEntry(zw *zip.Writer, name string, modified time.Time, fill func(io.Writer) error) error {
	h := &zip.FileHeader{Name: name, Method: zip.Deflate, Modified: modified}
	h.SetMode(0o600)
	dst, err := zw.CreateHeader(h)
	if err != nil {
		return fmt.Errorf("add %s: %w", name, err)
	}
	if err := fill(dst); err != nil {
		return fmt.Errorf("add %s: %w", name, err)
	}
	return nil
}

// writeAtomic writes a file (mode 0600) through a temporary file in the same
// directory and renames it into place when fill, sync and close succeeded. It
// returns the SHA-256 of what was written.
func writeAtomic(dst string, fill func(io.Writer) error) (string, error) {
	return writeAtomicMode(dst, false, false, fill)
}

// writeAtomicMode is writeAtomic that, with noReplace, leaves an existing dst
// alone and fails with an error matching fs.ErrExist: the complete file is
// hard-linked into place, which fails when dst exists. Where hard links are
// not supported it checks for dst just before the rename. With keep, a
// complete file that cannot replace dst is kept beside it (*KeptError).
func writeAtomicMode(dst string, noReplace, keep bool, fill func(io.Writer) error) (string, error) {
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".tmp-*")
	if err != nil {
		return "", err
	}
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := tmp.Chmod(0o600); err != nil {
		return "", err
	}
	h := sha256.New()
	if err := fill(io.MultiWriter(tmp, h)); err != nil {
		return "", err
	}
	if err := tmp.Sync(); err != nil {
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if err := moveIntoPlace(tmp.Name(), dst, noReplace); err != nil {
		if !keep || (noReplace && errors.Is(err, fs.ErrExist)) {
			return "", err
		}
		kept, kerr := keepBeside(tmp.Name(), dst)
		if kerr != nil {
			return "", err
		}
		ok = true
		return sum, &KeptError{Path: dst, Kept: kept, Err: err}
	}
	ok = true
	return sum, nil
}

func moveIntoPlace(tmp, dst string, noReplace bool) error {
	if !noReplace {
		return os.Rename(tmp, dst)
	}
	err := os.Link(tmp, dst)
	if err == nil {
		os.Remove(tmp)
		return nil
	}
	if errors.Is(err, fs.ErrExist) {
		return &fs.PathError{Op: "create", Path: dst, Err: fs.ErrExist}
	}
	if _, serr := os.Lstat(dst); serr == nil {
		return &fs.PathError{Op: "create", Path: dst, Err: fs.ErrExist}
	}
	return os.Rename(tmp, dst)
}
