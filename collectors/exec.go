package collectors

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/wincni/diag/collectors/redact"
)

// Runner runs one command with an argument list, never through a shell
// string, and returns its standard output. A failure's error carries the
// first line of standard error.
type Runner interface {
	Run(ctx context.Context, name string, args ...string) ([]byte, error)
}

// ExecRunner runs commands with os/exec.
type ExecRunner struct{}

// Run runs name with args until it exits or ctx ends.
func (ExecRunner) Run(ctx context.Context, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &limitedBuffer{max: 64 << 10, buf: &stderr}
	// What the tool started is ended with it (startTree); should anything
	// still hold the pipes, we wait for them no longer than this.
	cmd.WaitDelay = 2 * time.Second
	tree, err := startTree(cmd)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	err = cmd.Wait()
	tree.end()
	if errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState.Success() {
		// The tool exited 0 and its answer was read; only something it
		// left behind still held the pipe.
		err = nil
	}
	if err != nil {
		if ctx.Err() != nil {
			return stdout.Bytes(), fmt.Errorf("%s: %w", name, ctx.Err())
		}
		// PowerShell and other tools may write their errors in UTF-16.
		if line := firstLine(string(redact.Decode(stderr.Bytes()))); line != "" {
			return stdout.Bytes(), fmt.Errorf("%s: %w: %s", name, err, line)
		}
		return stdout.Bytes(), fmt.Errorf("%s: %w", name, err)
	}
	return stdout.Bytes(), nil
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

func firstLine(s string) string {
	// A tool's words go to the console and the manifest: no byte order
	// mark, NUL or other control code, and no character cut in two.
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
