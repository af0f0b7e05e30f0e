package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// streamOutput writes a report as it is rendered, instead of holding all of
// it (a capture's JSON with a hundred thousand flows is tens of MB): to
// standard output, or to file through a temporary file beside it that is
// renamed into place, so that a failed run never leaves half a report
// where the last good one was.
func streamOutput(stdout io.Writer, file string, render func(io.Writer) error) error {
	if file == "" {
		tw := &trackedWriter{w: stdout}
		bw := bufio.NewWriterSize(tw, 64<<10)
		rerr := render(bw)
		ferr := bw.Flush()
		switch {
		case tw.err != nil:
			return tw.err
		case rerr != nil:
			return fmt.Errorf("render report: %w", rerr)
		}
		return ferr
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), "."+filepath.Base(file)+".*.tmp")
	if err != nil {
		return usageErrorf("write report: %s: %v", file, pathErr(err))
	}
	tw := &trackedWriter{w: tmp}
	bw := bufio.NewWriterSize(tw, 64<<10)
	rerr := render(bw)
	ferr := bw.Flush()
	cerr := tmp.Close()
	if rerr == nil && tw.err == nil && ferr == nil && cerr == nil {
		if err := os.Chmod(tmp.Name(), 0o644); err == nil {
			if err = os.Rename(tmp.Name(), file); err == nil {
				return nil
			}
			cerr = err
		} else {
			cerr = err
		}
	}
	os.Remove(tmp.Name())
	switch {
	case tw.err != nil:
		return usageErrorf("write report: %s: %v", file, pathErr(tw.err))
	case rerr != nil:
		return fmt.Errorf("render report: %w", rerr)
	case ferr != nil:
		return usageErrorf("write report: %s: %v", file, pathErr(ferr))
	}
	return usageErrorf("write report: %s: %v", file, pathErr(cerr))
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
