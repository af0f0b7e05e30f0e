package hostexec

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/wincni/diag/redact"
)

// Runner runs one command with an argument list, never through a shell
// string, and returns its output. A failure's error says why.
type Runner interface {
	Run(ctx context.Context, name string, args ...string) ([]byte, error)
}

// Exec runs commands with os/exec. What a tool starts is ended with it (a
// process group, a job object on Windows), and a tool that exits while
// something it left holds its pipes is waited for no longer than two
// seconds.
//
// By default Run returns standard output, and a failure's error carries the
// first line of standard error (64 KiB of it kept). With Combined, standard
// error is part of the output (pktmon writes its errors to either, and the
// caller reads them there) and the error is the exit status alone.
type Exec struct {
	Combined bool
}

// Run runs name with args until it exits or ctx ends.
func (x Exec) Run(ctx context.Context, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &limitedBuffer{max: 64 << 10, buf: &stderr}
	if x.Combined {
		cmd.Stderr = &stdout
	}
	// What the tool started is ended with it (startTree); should anything
	// still hold the pipes, we wait for them no longer than this.
	cmd.WaitDelay = 2 * time.Second
	tree, err := startTree(cmd)
	if err != nil {
		if x.Combined {
			return nil, err
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	err = cmd.Wait()
	tree.end()
	if errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState.Success() {
		// The tool exited 0 and its answer was read; only something it
		// left behind still held the pipe.
		err = nil
	}
	switch {
	case err == nil:
		return stdout.Bytes(), nil
	case x.Combined:
		return stdout.Bytes(), err
	case ctx.Err() != nil:
		return stdout.Bytes(), fmt.Errorf("%s: %w", name, ctx.Err())
	}
	// PowerShell and other tools may write their errors in UTF-16.
	if line := FirstLine(string(redact.Decode(stderr.Bytes()))); line != "" {
		return stdout.Bytes(), fmt.Errorf("%s: %w: %s", name, err, line)
	}
	return stdout.Bytes(), fmt.Errorf("%s: %w", name, err)
}

type limitedBuffer struct {
	max int
	buf *bytes.Buffer
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.buf.Len(); room > 0 {
		if len(p) > room {
			l.buf.Write(p[:room])
		} else {
			l.buf.Write(p)
		}
	}
	return len(p), nil
}

// FirstLine is the first line of a tool's words, as they go to the console
// and the manifest: no byte order mark, NUL or other control code, no
// character cut in two, at most 200 characters.
func FirstLine(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\ufeff' || r == 0:
			return -1
		case r == '\r' || r == '\n':
			return r
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "\ufffd"))
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	if r := []rune(s); len(r) > 200 {
		s = string(r[:200]) + "..."
	}
	return s
}
