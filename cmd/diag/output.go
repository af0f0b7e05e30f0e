package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/wincni/diag/console"
)

// refuseExisting refuses, before any work, to replace an existing output
// file without --force, and an output that is a directory: one rule for
// every command that writes a file (flag names the option in messages).
func refuseExisting(flag, out string, force bool) error {
	if out == "" {
		return nil
	}
	fi, err := os.Stat(out)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return usageErrorf("%s %s: %v", flag, out, err)
	case fi.IsDir():
		return usageErrorf("%s %s is a directory, not a file", flag, out)
	case !force:
		return usageErrorf("%s already exists (--force replaces it)", out)
	}
	return nil
}

// reportOut is where a report in format goes when it goes to stdout: the
// text formats (table, markdown) in the code page a redirection on Windows
// is read in (PowerShell 5.1 decodes a program's output with the console's
// code page, and would garble UTF-8's "·", "—", "→"); JSON and HTML stay
// UTF-8, which their readers expect whatever the console.
func (e *env) reportOut(format string) io.Writer {
	if e.stdoutCodePage == nil || format == "json" || format == "html" {
		return e.stdout
	}
	return console.Writer(e.stdout, e.stdoutCodePage())
}

// streamOutput writes a report as it is rendered, instead of holding all of
// it (a capture's JSON with a hundred thousand flows is tens of MB): to
// standard output, or to file through a temporary file beside it that is
// renamed into place, so that a failed run never leaves half a report
// where the last good one was.
func streamOutput(stdout io.Writer, file string, render func(io.Writer) error) error {
	if file == "" {
		werr, rerr := renderTo(stdout, render)
		if werr != nil {
			return werr
		}
		return rerr
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".*.tmp")
	if err != nil {
		return usageErrorf("write report: %s: %v", file, pathErr(err))
	}
	werr, rerr := renderTo(tmp, render)
	if cerr := tmp.Close(); werr == nil && rerr == nil {
		werr = cerr
	}
	if werr == nil && rerr == nil {
		if werr = os.Chmod(tmp.Name(), 0o644); werr == nil {
			if werr = os.Rename(tmp.Name(), file); werr == nil {
				return nil
			}
		}
	}
	os.Remove(tmp.Name())
	if werr != nil {
		return usageErrorf("write report: %s: %v", file, pathErr(werr))
	}
	return rerr
}

// renderTo renders through a buffer into w. It tells a write error (a full
// disk, a closed pipe) from the renderer's own, which it wraps.
func renderTo(w io.Writer, render func(io.Writer) error) (werr, rerr error) {
	tw := &trackedWriter{w: w}
	bw := bufio.NewWriterSize(tw, 64<<10)
	if err := render(bw); err != nil && tw.err == nil {
		rerr = fmt.Errorf("render report: %w", err)
	}
	ferr := bw.Flush()
	werr = tw.err
	if werr == nil && rerr == nil {
		werr = ferr
	}
	return werr, rerr
}

// trackedWriter remembers the first write error, to tell a full disk or a
// closed pipe from a renderer's error.
type trackedWriter struct {
	w   io.Writer
	err error
}

func (t *trackedWriter) Write(p []byte) (int, error) {
	n, err := t.w.Write(p)
	if err != nil && t.err == nil {
		t.err = err
	}
	return n, err
}

// pathErr is the reason of a file error without the (temporary) path.
func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
