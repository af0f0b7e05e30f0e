package collectors

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/wincni/diag/bundle"
	"github.com/wincni/diag/redact"
)

// Output is one collector's handle on the bundle. Every text file goes
// through redaction; what was removed is recorded in the manifest. Once the
// runner has given up on a collector (timeout, interrupt) its Output is
// sealed: a collector that ignores its context cannot write any more.
type Output struct {
	id   string
	w    *bundle.Writer
	logf func(format string, args ...any)

	mu       sync.RWMutex // writes hold it shared, seal holds it alone
	sealed   bool
	filesMu  sync.Mutex
	files    []string
	problems []error
}

// ErrSealed is returned for writes after the runner gave up on a collector.
var ErrSealed = errors.New("collector's time is up: output sealed")

func newOutput(id string, w *bundle.Writer, logf func(string, ...any)) *Output {
	return &Output{id: id, w: w, logf: logf}
}

func (o *Output) seal() {
	o.mu.Lock()
	o.sealed = true
	o.mu.Unlock()
}

// Logf writes a line to diag.log (and the progress stream).
func (o *Output) Logf(format string, args ...any) {
	o.logf(o.id+": "+format, args...)
}

// Problem records a failure that did not stop the collector (one command
// of many failed): the collector ends partial.
func (o *Output) Problem(err error) {
	o.filesMu.Lock()
	o.problems = append(o.problems, err)
	o.filesMu.Unlock()
	o.Logf("%v", err)
}

// WriteText adds a text entry, redacted. UTF-16 text (PowerShell's
// redirections write it) is stored as UTF-8 so that redaction can read it.
// Binary data is refused: it cannot be redacted safely.
func (o *Output) WriteText(name string, data []byte) error {
	clean, marks, err := redact.File(data)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := o.write(name, clean); err != nil {
		return err
	}
	if len(marks) > 0 {
		kinds := make([]string, len(marks))
		for i, c := range marks {
			kinds[i] = fmt.Sprintf("%d %s", c.Count, c.Kind)
		}
		o.Logf("%s: redacted %s", name, strings.Join(kinds, ", "))
		return o.w.MarkEntry(name, false, marks)
	}
	return nil
}

// WriteTail adds the last max bytes of a text file (a log), redacted, and
// marks it truncated when it was cut.
func (o *Output) WriteTail(name string, data []byte, max int64) error {
	cut := false
	if max > 0 && int64(len(data)) > max {
		data = data[int64(len(data))-max:]
		// Start at a whole line, and never inside a UTF-8 sequence.
		if i := bytes.IndexByte(data, '\n'); i >= 0 && i < len(data)-1 {
			data = data[i+1:]
		}
		for len(data) > 0 && !utf8.RuneStart(data[0]) {
			data = data[1:]
		}
		cut = true
	}
	if err := o.WriteText(name, data); err != nil {
		return err
	}
	if cut {
		return o.w.MarkEntry(name, true, nil)
	}
	return nil
}

// WriteBinary adds an entry that is kept whole (packet captures): it is
// not text and is not redacted.
func (o *Output) WriteBinary(name string, r io.Reader) error {
	o.mu.RLock()
	defer o.mu.RUnlock()
	if o.sealed {
		return ErrSealed
	}
	e, err := o.w.Create(name)
	if err != nil {
		return err
	}
	if _, err := io.Copy(e, r); err != nil {
		e.Abort()
		return fmt.Errorf("entry %q: %w", name, err)
	}
	if err := e.Close(); err != nil {
		return err
	}
	o.addFile(name)
	return nil
}

func (o *Output) write(name string, data []byte) error {
	o.mu.RLock()
	defer o.mu.RUnlock()
	if o.sealed {
		return ErrSealed
	}
	if err := o.w.WriteFile(name, data); err != nil {
		return err
	}
	o.addFile(name)
	return nil
}

func (o *Output) addFile(name string) {
	o.filesMu.Lock()
	o.files = append(o.files, name)
	o.filesMu.Unlock()
}

// Files lists what the collector wrote, sorted.
func (o *Output) Files() []string {
	o.filesMu.Lock()
	defer o.filesMu.Unlock()
	out := append([]string(nil), o.files...)
	sort.Strings(out)
	return out
}

func (o *Output) takeProblems() []error {
	o.filesMu.Lock()
	defer o.filesMu.Unlock()
	return o.problems
}

// Command runs a command and stores its standard output as a text entry.
// It returns the output so that the collector can look at it.
func (o *Output) Command(ctx context.Context, e *Env, name string, cmd string, args ...string) ([]byte, error) {
	out, err := e.Runner.Run(ctx, cmd, args...)
	if err != nil {
		return out, fmt.Errorf("%s %s: %w", cmd, strings.Join(args, " "), err)
	}
	if err := o.WriteText(name, out); err != nil {
		return out, err
	}
	return out, nil
}

// CopyFiles copies the files matching each glob pattern of fsys (slash
// paths, no leading slash) under dir in the bundle, keeping each file's
// base name. Text is redacted; binary files are left out and logged;
// files over max are tailed. It returns how many files were copied.
func (o *Output) CopyFiles(fsys fs.FS, dir string, max int64, patterns ...string) (int, error) {
	n := 0
	seen := map[string]bool{}
	for _, p := range patterns {
		matches, err := fs.Glob(fsys, p)
		if err != nil {
			return n, fmt.Errorf("pattern %s: %w", p, err)
		}
		for _, m := range matches {
			base := m[strings.LastIndex(m, "/")+1:]
			if seen[base] {
				continue
			}
			if info, err := fs.Stat(fsys, m); err != nil || !info.Mode().IsRegular() {
				continue
			}
			seen[base] = true
			data, err := readCapped(fsys, m, max)
			if err != nil {
				o.Problem(fmt.Errorf("read %s: %w", m, err))
				continue
			}
			if redact.IsBinary(redact.Decode(data)) {
				o.Logf("%s: binary or compressed, left out", m)
				continue
			}
			if err := o.WriteTail(dir+"/"+safeName(base), data, max); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}

// readCapped reads at most the last max bytes of a file (a log may be
// gigabytes), or the whole file when max <= 0.
func readCapped(fsys fs.FS, name string, max int64) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if max > 0 {
		if info, err := f.Stat(); err == nil && info.Size() > max {
			if s, ok := f.(io.Seeker); ok {
				// Keep one byte more than max so that WriteTail sees the cut.
				if _, err := s.Seek(info.Size()-max-1, io.SeekStart); err == nil {
					return io.ReadAll(f)
				}
			}
		}
	}
	return io.ReadAll(f)
}

// safeName keeps a file's base name usable as a bundle entry name.
func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '/' || r == '\\' || r == ':' || r < ' ':
			return '_'
		}
		return r
	}, s)
}
