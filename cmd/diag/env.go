package main

import (
	"io"
	"os"
	"strconv"
	"time"

	"github.com/mattn/go-isatty"
	"golang.org/x/term"

	"github.com/wincni/diag/console"
)

// env is what the commands may touch of the outside world; tests replace it.
type env struct {
	stdin          io.Reader // nil: empty
	stdout, stderr io.Writer
	getenv         func(string) string
	now            func() time.Time
	// isTerminal and termWidth describe stdout.
	isTerminal func() bool
	termWidth  func() int
	// stderrTerminal says whether stderr is a terminal that draws escape
	// codes (live progress).
	stderrTerminal func() bool
	// stdoutCodePage is the code page text reports go to stdout in; 0 is
	// UTF-8 (console.RedirectedCodePage). Nil: 0.
	stdoutCodePage func() uint32
}

func newEnv() *env {
	return &env{
		stdin:  os.Stdin,
		stdout: os.Stdout,
		stderr: os.Stderr,
		getenv: os.Getenv,
		now:    time.Now,
		isTerminal: func() bool {
			fd := os.Stdout.Fd()
			return isatty.IsTerminal(fd) || isatty.IsCygwinTerminal(fd)
		},
		stderrTerminal: func() bool {
			fd := os.Stderr.Fd()
			return (isatty.IsTerminal(fd) || isatty.IsCygwinTerminal(fd)) && console.EnableVT(os.Stderr)
		},
		stdoutCodePage: func() uint32 { return console.RedirectedCodePage(os.Stdout) },
		termWidth: func() int {
			if w, _, err := term.GetSize(int(os.Stdout.Fd())); err == nil && w > 0 {
				return w
			}
			return 0
		},
	}
}

// useColor follows --color, then the NO_COLOR convention (no-color.org) and
// TERM=dumb, then whether stdout is a terminal.
func (e *env) useColor(flag string, toFile bool) bool {
	switch flag {
	case "always":
		return true
	case "never":
		return false
	}
	if toFile || e.getenv("NO_COLOR") != "" || e.getenv("TERM") == "dumb" {
		return false
	}
	return e.isTerminal()
}

// width is the terminal width, else $COLUMNS, else 100.
func (e *env) width() int {
	if e.isTerminal() {
		if w := e.termWidth(); w > 0 {
			return w
		}
	}
	if c, err := strconv.Atoi(e.getenv("COLUMNS")); err == nil && c > 20 {
		return c
	}
	return 100
}
