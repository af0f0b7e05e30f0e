package main

import (
	"io"
	"os"
	"strconv"
	"time"

	"github.com/mattn/go-isatty"
	"golang.org/x/term"
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
	// stderrTerminal says whether stderr is a terminal (live progress).
	stderrTerminal func() bool
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
			return isatty.IsTerminal(fd) || isatty.IsCygwinTerminal(fd)
		},
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
