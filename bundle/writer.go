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

	"github.com/wincni/diag/manifest"
)

// Writer builds a bundle. Entries are staged as files in a private temporary
// directory (each written as .partial and renamed when complete), so that
// collectors can write concurrently and a collector that dies mid-write
// leaves no half entry. Close zips the staged entries into a temporary file
// next to the output and renames it into place only when it is complete.
type Writer struct {
	out      string
	staging  string
	manifest manifest.Manifest
	now      func() time.Time

	mu         sync.Mutex
	files      map[string]*manifest.FileEntry
	staged     map[string]string // entry name → its staged file
	seq        int
	open       map[string]bool
	closed     bool
	noReplace  bool
	companions []companion
}

// Create starts a bundle that will be written to out. The manifest's Format,
// Version and Files are filled in by the writer.
func Create(out string, m manifest.Manifest) (*Writer, error) {
	staging, err := os.MkdirTemp("", "diag-bundle-")
	if err != nil {
		return nil, fmt.Errorf("create staging directory: %w", err)
	}
	return &Writer{
		out:      out,
		staging:  staging,
		manifest: m,
		now:      time.Now,
		files:    map[string]*manifest.FileEntry{},
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
	e.w.files[e.name] = &manifest.FileEntry{Path: e.name, Size: e.n, SHA256: hex.EncodeToString(e.h.Sum(nil))}
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
func (w *Writer) MarkEntry(name string, truncated bool, redacted []manifest.Redaction) error {
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
func (w *Writer) AddCollector(r manifest.CollectorResult) {
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
	m.Format, m.Version = manifest.Format, manifest.Version
	m.Files = make([]manifest.FileEntry, 0, len(w.files))
	for _, fe := range w.files {
		m.Files = append(m.Files, *fe)
	}
	sort.Slice(m.Files, func(i, j int) bool { return m.Files[i].Path < m.Files[j].Path })
	sort.Slice(m.Collectors, func(i, j int) bool { return m.Collectors[i].ID < m.Collectors[j].ID })
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return "", fmt.Errorf("encode manifest: %w", err)
	}

	modified := w.now()
	if m.Finished != nil {
		modified = *m.Finished
	}
	zipTmp, sum, err := writeTemp(w.out, func(f io.Writer) error {
		zw := zip.NewWriter(f)
		if err := addZipEntry(zw, ManifestPath, modified, func(dst io.Writer) error {
			_, err := dst.Write(append(data, '\n'))
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
	if err != nil {
		w.removeCompanions()
		return "", fmt.Errorf("write %s: %w", w.out, err)
	}
	sidecarTmp, _, err := writeTemp(w.out+".sha256", sidecarFill(sum, w.out))
	if err != nil {
		os.Remove(zipTmp)
		w.removeCompanions()
		return "", fmt.Errorf("write %s.sha256: %w", w.out, err)
	}
	// The zip, its sidecar and the companions take their places together
	// or not at all: never a zip beside a sidecar naming another checksum.
	set := []replaceFile{{Tmp: zipTmp, Dst: w.out, NoReplace: noReplace}, {Tmp: sidecarTmp, Dst: w.out + ".sha256"}}
	for _, c := range w.companions {
		set = append(set, replaceFile{Tmp: c.tmp, Dst: w.out + c.suffix})
	}
	err = replaceSet(set)
	var held *heldError
	if errors.As(err, &held) {
		os.Remove(sidecarTmp)
		return "", w.keep(zipTmp, sum, held)
	}
	if err != nil {
		os.Remove(zipTmp)
		os.Remove(sidecarTmp)
		w.removeCompanions()
		return "", fmt.Errorf("write %s: %w", w.out, err)
	}
	return sum, nil
}

// keep moves the complete new set beside the output that could not be
// replaced: NAME.new.zip with its own sidecar and companions
// (NAME.new.zip.sha256, NAME.new.zip.key ...), so that bundle verify checks
// it as it would the output.
func (w *Writer) keep(zipTmp, sum string, held *heldError) error {
	kept, err := keepBeside(zipTmp, w.out)
	if err != nil {
		os.Remove(zipTmp)
		w.removeCompanions()
		return fmt.Errorf("%s could not be replaced (%v), nor the new bundle kept beside it: %w", held.Path, held.Reason(), err)
	}
	ke := &KeptError{Path: held.Path, Kept: kept, Err: held.Err}
	if _, err := writeAtomic(kept+".sha256", sidecarFill(sum, kept)); err == nil {
		ke.Also = append(ke.Also, ".sha256")
	}
	for _, c := range w.companions {
		if c.tmp == "" {
			continue
		}
		if err := os.Rename(c.tmp, kept+c.suffix); err != nil {
			os.Remove(c.tmp)
			continue
		}
		ke.Also = append(ke.Also, c.suffix)
	}
	return ke
}

// sidecarFill writes the sidecar line of the zip at path: its checksum and
// its file name, as sha256sum writes them.
func sidecarFill(sum, path string) func(io.Writer) error {
	return func(f io.Writer) error {
		_, err := fmt.Fprintf(f, "%s  %s\n", sum, filepath.Base(path))
		return err
	}
}

// companion is a complete file to be put at the output path + suffix
// together with the bundle.
type companion struct{ suffix, tmp string }

// Companion has Close put the complete file tmp at the output path +
// suffix (".key", ".map.json") in the same step as the bundle and its
// sidecar, all or none; when the output cannot be replaced it is kept
// beside the kept bundle with the same suffix. The Writer owns tmp from
// now on: Close and Abort remove it when it is not put in place. tmp must
// be in the output's folder. With tmp "", an existing output path + suffix
// is removed in that step instead (an old run's file that would not belong
// with the new bundle).
func (w *Writer) Companion(suffix, tmp string) {
	w.mu.Lock()
	w.companions = append(w.companions, companion{suffix, tmp})
	w.mu.Unlock()
}

func (w *Writer) removeCompanions() {
	for _, c := range w.companions {
		if c.tmp != "" {
			os.Remove(c.tmp)
		}
	}
}

// Abort discards everything written so far.
func (w *Writer) Abort() {
	w.mu.Lock()
	w.closed = true
	w.mu.Unlock()
	os.RemoveAll(w.staging)
	w.removeCompanions()
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
	tmp, sum, err := writeTemp(dst, fill)
	if err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dst); err != nil {
		os.Remove(tmp)
		return "", err
	}
	return sum, nil
}

// writeTemp writes a complete file (mode 0600, synced) under a temporary
// name beside dst and returns that name and the SHA-256 of what was
// written; on error nothing is left.
func writeTemp(dst string, fill func(io.Writer) error) (string, string, error) {
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".tmp-*")
	if err != nil {
		return "", "", err
	}
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := tmp.Chmod(0o600); err != nil {
		return "", "", err
	}
	h := sha256.New()
	if err := fill(io.MultiWriter(tmp, h)); err != nil {
		return "", "", err
	}
	if err := tmp.Sync(); err != nil {
		return "", "", err
	}
	if err := tmp.Close(); err != nil {
		return "", "", err
	}
	ok = true
	return tmp.Name(), hex.EncodeToString(h.Sum(nil)), nil
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
