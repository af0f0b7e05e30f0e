package bundle

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/wincni/diag/manifest"
)

// ErrTooLarge is returned when an entry or the whole bundle is bigger than
// the reader's limits allow.
var ErrTooLarge = errors.New("too large")

// ErrBeyondMax is ReadFileMax's ErrTooLarge: the entry holds more than
// its caller's maximum (not the bundle's limits).
var ErrBeyondMax error = beyondMax{}

type beyondMax struct{}

func (beyondMax) Error() string        { return ErrTooLarge.Error() }
func (beyondMax) Is(target error) bool { return target == ErrTooLarge }

// Bundle is an opened bundle: a zip or a directory with the bundle layout.
// Entries are read on demand; nothing is extracted to disk.
type Bundle struct {
	path    string
	isDir   bool
	single  bool // a single file, not a zip or directory
	limits  Limits
	entries []*entry
	index   map[string]*entry
	file    *os.File // the zip, when opened from a path
	root    *os.Root // the directory, when opened from one

	shaOnce  sync.Once
	shaIndex map[string]string // manifest path -> SHA-256
	mu       sync.Mutex
	mismatch []string // entries whose content differs from the manifest
	read     atomic.Int64
	Manifest *manifest.Manifest // nil when the bundle has none
}

type entry struct {
	name   string
	size   int64     // declared (zip) or stat (directory) size
	zf     *zip.File // zip entries
	osPath string    // a single file's path
	data   []byte    // a single input held in memory (standard input)
	rel    string    // directory entries: the path beneath the root, as walked
}

// Open opens a bundle zip or directory at path.
func Open(p string, lim Limits) (*Bundle, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, &Error{Path: p, Err: unwrapPathError(err)}
	}
	if fi.IsDir() {
		return openDir(p, lim)
	}
	// Opened without blocking and checked as opened: a FIFO or device
	// given as input is refused, not waited on.
	f, fi, err := openRegular(p)
	if err != nil {
		return nil, &Error{Path: p, Err: unwrapPathError(err)}
	}
	if !isZip(f) {
		f.Close()
		return openFile(p, fi, lim)
	}
	b, err := OpenZip(f, fi.Size(), p, lim)
	if err != nil {
		f.Close()
		return nil, err
	}
	b.file = f
	return b, nil
}

// OpenBytes opens an input held in memory (standard input): a zip, or one
// file of text or JSON; name is used in errors and references.
func OpenBytes(name string, data []byte, lim Limits) (*Bundle, error) {
	if bytes.HasPrefix(data, []byte("PK\x03\x04")) || bytes.HasPrefix(data, []byte("PK\x05\x06")) {
		return OpenZip(bytes.NewReader(data), int64(len(data)), name, lim)
	}
	if int64(len(data)) > lim.MaxEntrySize {
		return nil, &Error{Path: name, Err: fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, len(data), lim.MaxEntrySize)}
	}
	if data == nil {
		data = []byte{}
	}
	b := &Bundle{path: name, single: true, limits: lim, index: map[string]*entry{}}
	if err := b.add(&entry{name: "stdin", size: int64(len(data)), data: data}); err != nil {
		return nil, err
	}
	return b, b.finish()
}

// OpenZip opens a bundle zip from r; name is used in errors.
func OpenZip(r io.ReaderAt, size int64, name string, lim Limits) (*Bundle, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, &Error{Path: name, Err: describeZipError(err)}
	}
	if len(zr.File) > lim.MaxEntries {
		return nil, &Error{Path: name, Err: fmt.Errorf("%d entries, more than the limit of %d", len(zr.File), lim.MaxEntries)}
	}
	b := &Bundle{path: name, limits: lim, index: make(map[string]*entry, len(zr.File))}
	var declared uint64
	for _, zf := range zr.File {
		mode := zf.Mode()
		if mode&fs.ModeSymlink != 0 {
			return nil, &Error{Path: name, Entry: zf.Name, Err: errors.New("symbolic link in bundle")}
		}
		if mode.IsDir() {
			if _, err := cleanName(zf.Name); err != nil {
				return nil, &Error{Path: name, Entry: zf.Name, Err: err}
			}
			continue
		}
		if !mode.IsRegular() {
			return nil, &Error{Path: name, Entry: zf.Name, Err: fmt.Errorf("not a regular file (mode %v)", mode)}
		}
		if zf.UncompressedSize64 > uint64(lim.MaxEntrySize) {
			return nil, &Error{Path: name, Entry: zf.Name, Err: fmt.Errorf("%w: %d bytes uncompressed, limit %d", ErrTooLarge, zf.UncompressedSize64, lim.MaxEntrySize)}
		}
		declared += zf.UncompressedSize64
		if declared > uint64(lim.MaxTotalSize) {
			return nil, &Error{Path: name, Err: fmt.Errorf("%w: entries add up to more than %d bytes uncompressed", ErrTooLarge, lim.MaxTotalSize)}
		}
		if err := b.add(&entry{name: zf.Name, size: int64(zf.UncompressedSize64), zf: zf}); err != nil {
			return nil, err
		}
	}
	if err := b.finish(); err != nil {
		return nil, err
	}
	return b, nil
}

// isZip looks for a zip signature at the start: a local file header, or the
// end record of an empty archive. A truncated or corrupt zip still has one.
func isZip(f *os.File) bool {
	var magic [4]byte
	n, _ := f.ReadAt(magic[:], 0)
	return n == 4 && magic[0] == 'P' && magic[1] == 'K' && (magic[2] == 3 && magic[3] == 4 || magic[2] == 5 && magic[3] == 6 || magic[2] == 7 && magic[3] == 8)
}

// openFile makes a one-entry bundle of a single file (a paste, one JSON
// dump); what it holds is decided later, from its content.
func openFile(p string, fi os.FileInfo, lim Limits) (*Bundle, error) {
	if !fi.Mode().IsRegular() {
		return nil, &Error{Path: p, Err: errors.New("not a regular file, zip or directory")}
	}
	if fi.Size() > lim.MaxEntrySize {
		return nil, &Error{Path: p, Err: fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, fi.Size(), lim.MaxEntrySize)}
	}
	b := &Bundle{path: p, single: true, limits: lim, index: map[string]*entry{}}
	if err := b.add(&entry{name: filepath.Base(p), size: fi.Size(), osPath: p}); err != nil {
		return nil, err
	}
	return b, b.finish()
}

func openDir(named string, lim Limits) (*Bundle, error) {
	// The directory the user named may itself be a symbolic link: follow
	// that one, once; inside it, no link is followed (os.Root).
	root, err := filepath.EvalSymlinks(named)
	if err != nil {
		return nil, &Error{Path: named, Err: unwrapPathError(err)}
	}
	dirRoot, err := os.OpenRoot(root)
	if err != nil {
		return nil, &Error{Path: named, Err: unwrapPathError(err)}
	}
	b := &Bundle{path: named, isDir: true, limits: lim, index: map[string]*entry{}, root: dirRoot}
	var total int64
	count := 0
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return &Error{Path: root, Err: unwrapPathError(err)}
		}
		if p == root {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		count++
		if count > lim.MaxEntries {
			return &Error{Path: root, Err: fmt.Errorf("more than the limit of %d entries", lim.MaxEntries)}
		}
		if d.Type()&fs.ModeSymlink != 0 {
			return &Error{Path: root, Entry: rel, Err: errors.New("symbolic link in bundle: diag follows no link inside a folder it reads; is this a bundle's folder? (a diag bundle holds manifest.json or hns/, host/, k8s/; collectlogs output network.txt, endpoint.txt)")}
		}
		if d.IsDir() {
			return nil
		}
		if !d.Type().IsRegular() {
			return &Error{Path: root, Entry: rel, Err: errors.New("not a regular file")}
		}
		fi, err := d.Info()
		if err != nil {
			return &Error{Path: root, Entry: rel, Err: err}
		}
		if fi.Size() > lim.MaxEntrySize {
			return &Error{Path: root, Entry: rel, Err: fmt.Errorf("%w: %d bytes, limit %d", ErrTooLarge, fi.Size(), lim.MaxEntrySize)}
		}
		total += fi.Size()
		if total > lim.MaxTotalSize {
			return &Error{Path: root, Err: fmt.Errorf("%w: files add up to more than %d bytes", ErrTooLarge, lim.MaxTotalSize)}
		}
		return b.add(&entry{name: rel, size: fi.Size(), rel: rel})
	})
	if err != nil {
		dirRoot.Close()
		return nil, err
	}
	if err := b.finish(); err != nil {
		dirRoot.Close()
		return nil, err
	}
	return b, nil
}

func (b *Bundle) add(e *entry) error {
	clean, err := cleanName(e.name)
	if err != nil {
		return &Error{Path: b.path, Entry: e.name, Err: err}
	}
	if _, dup := b.index[clean]; dup {
		return &Error{Path: b.path, Entry: e.name, Err: errors.New("duplicate entry name")}
	}
	e.name = clean
	b.index[clean] = e
	b.entries = append(b.entries, e)
	return nil
}

func (b *Bundle) finish() error {
	b.stripWrapperFolder()
	sort.Slice(b.entries, func(i, j int) bool { return b.entries[i].name < b.entries[j].name })
	if !b.Has(ManifestPath) {
		return nil
	}
	data, err := b.ReadFileMax(ManifestPath, MaxManifestSize)
	if err != nil {
		return err
	}
	m, err := manifest.Parse(data)
	if err != nil {
		return &Error{Path: b.path, Entry: ManifestPath, Err: err}
	}
	b.Manifest = m
	return nil
}

// layoutFolders are the top-level folders of the bundle layout.
var layoutFolders = map[string]bool{"hns": true, "host": true, "k8s": true, "config": true, "vfp": true,
	"linux": true, "capture": true, "logs": true}

// stripWrapperFolder handles a bundle directory zipped by hand ("Send to >
// Compressed folder", zip -r): every entry then sits under one folder.
func (b *Bundle) stripWrapperFolder() {
	if len(b.entries) == 0 || b.Has(ManifestPath) {
		return
	}
	top, _, _ := strings.Cut(b.entries[0].name, "/")
	if layoutFolders[top] {
		return
	}
	for _, e := range b.entries {
		t, rest, nested := strings.Cut(e.name, "/")
		if !nested || t != top || rest == "" {
			return
		}
	}
	b.index = make(map[string]*entry, len(b.entries))
	for _, e := range b.entries {
		e.name = e.name[len(top)+1:]
		b.index[e.name] = e
	}
}

// Path is where the bundle was opened from.
func (b *Bundle) Path() string { return b.path }

// IsDir reports whether the bundle is a directory rather than a zip.
func (b *Bundle) IsDir() bool { return b.isDir }

// Kind says what the input was: "zip", "directory" or "file".
func (b *Bundle) Kind() string {
	switch {
	case b.isDir:
		return "directory"
	case b.single:
		return "file"
	}
	return "zip"
}

// Names lists the entries, sorted.
func (b *Bundle) Names() []string {
	out := make([]string, len(b.entries))
	for i, e := range b.entries {
		out[i] = e.name
	}
	return out
}

// Has reports whether the bundle has an entry called name.
func (b *Bundle) Has(name string) bool {
	_, ok := b.index[name]
	return ok
}

// TotalSize is the declared uncompressed size of every entry together.
func (b *Bundle) TotalSize() int64 {
	var n int64
	for _, e := range b.entries {
		if e.size > 0 {
			n += e.size
		}
	}
	return n
}

// Size is the declared uncompressed size of an entry.
func (b *Bundle) Size(name string) int64 {
	if e, ok := b.index[name]; ok {
		return e.size
	}
	return -1
}

// Glob lists the entries matching a path.Match pattern, sorted.
func (b *Bundle) Glob(pattern string) []string {
	var out []string
	for _, e := range b.entries {
		if ok, _ := path.Match(pattern, e.name); ok {
			out = append(out, e.name)
		}
	}
	return out
}

// Open opens an entry for streaming. Reads past the per-entry or total limit
// fail with ErrTooLarge; a zip entry whose data does not match its CRC fails
// at the end with a corruption error.
func (b *Bundle) Open(name string) (io.ReadCloser, error) {
	e, ok := b.index[name]
	if !ok {
		return nil, &Error{Path: b.path, Entry: name, Err: fs.ErrNotExist}
	}
	var rc io.ReadCloser
	var err error
	switch {
	case e.data != nil:
		rc = io.NopCloser(bytes.NewReader(e.data))
	case e.zf != nil:
		rc, err = e.zf.Open()
	case b.root != nil:
		// Beneath the directory, whatever was swapped in since the walk:
		// a link out of it, a FIFO or a device is refused.
		rc, _, err = openInRoot(b.root, filepath.FromSlash(e.rel))
	default:
		rc, _, err = openRegular(e.osPath)
	}
	if err != nil {
		return nil, &Error{Path: b.path, Entry: name, Err: describeZipError(unwrapPathError(err))}
	}
	le := &limitedEntry{rc: rc, b: b, name: name}
	if want := b.manifestSHA(name); want != "" {
		le.hash, le.want = sha256.New(), want
	}
	return le, nil
}

// manifestSHA is the SHA-256 the manifest records for an entry, if any.
func (b *Bundle) manifestSHA(name string) string {
	if b.Manifest == nil || len(b.Manifest.Files) == 0 {
		return ""
	}
	b.shaOnce.Do(func() {
		b.shaIndex = make(map[string]string, len(b.Manifest.Files))
		for _, f := range b.Manifest.Files {
			if len(f.SHA256) == sha256.Size*2 {
				b.shaIndex[f.Path] = strings.ToLower(f.SHA256)
			}
		}
	})
	return b.shaIndex[name]
}

// Mismatches lists the entries read to their end whose SHA-256 differs
// from the manifest's: a damaged or edited bundle. Reading checks them on
// the way, at no extra pass over the data.
func (b *Bundle) Mismatches() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.mismatch)
}

// ReadFile reads a whole entry into memory, within the limits.
func (b *Bundle) ReadFile(name string) ([]byte, error) {
	return b.ReadFileMax(name, math.MaxInt64-1)
}

// MaxManifestSize bounds manifest.json: a real one lists a few hundred
// files in well under a megabyte.
const MaxManifestSize = 16 << 20

// ReadFileMax reads an entry of at most max bytes, whatever its header
// says (ErrBeyondMax beyond), into a buffer sized from the header once
// rather than grown by doubling.
func (b *Bundle) ReadFileMax(name string, max int64) ([]byte, error) {
	rc, err := b.Open(name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	size := b.index[name].size
	if size < 0 || size > b.limits.MaxEntrySize {
		size = 0
	}
	buf := make([]byte, 0, min(size, max, 64<<20)+1)
	for int64(len(buf)) <= max {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := rc.Read(buf[len(buf):min(int64(cap(buf)), max+1)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
	return nil, &Error{Path: b.path, Entry: name, Err: fmt.Errorf("%w: more than %d bytes", ErrBeyondMax, max)}
}

// Close releases the zip file or the directory, if any.
func (b *Bundle) Close() error {
	if b.root != nil {
		b.root.Close()
	}
	if b.file != nil {
		return b.file.Close()
	}
	return nil
}

// limitedEntry enforces the per-entry and total limits on what is actually
// decompressed, whatever the headers claim.
type limitedEntry struct {
	rc   io.ReadCloser
	b    *Bundle
	name string
	n    int64
	hash hash.Hash // of what was read, when the manifest has the entry's SHA-256
	want string
}

func (l *limitedEntry) Read(p []byte) (int, error) {
	n, err := l.rc.Read(p)
	l.n += int64(n)
	if l.hash != nil {
		l.hash.Write(p[:n])
		if err == io.EOF {
			if got := hex.EncodeToString(l.hash.Sum(nil)); got != l.want {
				l.b.mu.Lock()
				l.b.mismatch = append(l.b.mismatch, l.name)
				l.b.mu.Unlock()
			}
			l.hash = nil
		}
	}
	if l.n > l.b.limits.MaxEntrySize {
		return n, &Error{Path: l.b.path, Entry: l.name, Err: fmt.Errorf("%w: more than %d bytes uncompressed", ErrTooLarge, l.b.limits.MaxEntrySize)}
	}
	if total := l.b.read.Add(int64(n)); total > l.b.limits.MaxTotalSize {
		return n, &Error{Path: l.b.path, Entry: l.name, Err: fmt.Errorf("%w: bundle decompresses to more than %d bytes", ErrTooLarge, l.b.limits.MaxTotalSize)}
	}
	if err != nil && err != io.EOF {
		if errors.Is(err, zip.ErrFormat) {
			// archive/zip stops reading at the size the header declares.
			return n, &Error{Path: l.b.path, Entry: l.name, Err: fmt.Errorf("data does not match the %d bytes its header declares (a zip bomb, or a corrupt entry): %w", l.b.index[l.name].size, err)}
		}
		return n, &Error{Path: l.b.path, Entry: l.name, Err: describeZipError(err)}
	}
	return n, err
}

func (l *limitedEntry) Close() error { return l.rc.Close() }

func describeZipError(err error) error {
	switch {
	case errors.Is(err, zip.ErrFormat):
		return fmt.Errorf("not a valid zip archive (truncated or corrupt): %w", err)
	case errors.Is(err, zip.ErrChecksum):
		return fmt.Errorf("corrupt data (CRC mismatch): %w", err)
	case errors.Is(err, zip.ErrAlgorithm):
		return fmt.Errorf("unsupported compression method: %w", err)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("truncated data: %w", err)
	}
	return err
}

// unwrapPathError drops the *fs.PathError wrapper: Error already names the path.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
