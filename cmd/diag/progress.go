package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/mattn/go-runewidth"
	"golang.org/x/term"
)

// progressAfter is how long work runs silently before a progress line
// appears (tests set it to zero).
var progressAfter = time.Second

// progress shows "analyzing 3/10: win-3.zip" on one rewritten stderr line,
// only on a terminal and only once the work has taken longer than
// progressAfter: short runs and pipes stay quiet, and stdout (the report)
// is never touched.
type progress struct {
	w     io.Writer
	on    bool
	start time.Time
	shown bool
	width func() int
}

func newProgress(w io.Writer, terminal bool) *progress {
	return &progress{w: w, on: terminal, start: time.Now(), width: func() int { return consoleWidth(w) }}
}

func (p *progress) step(verb string, i, n int, what string) {
	if !p.on || time.Since(p.start) < progressAfter {
		return
	}
	// One row: a line that wrapped would leave its first rows behind
	// when \r rewrites only the last.
	fmt.Fprintf(p.w, "\r\033[K%s", fitWidth(fmt.Sprintf("%s %d/%d: %s", verb, i, n, what), p.width()))
	p.shown = true
}

// done clears the line.
func (p *progress) done() {
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

// consoleWidth is the width of the terminal w writes to, else $COLUMNS,
// else 80.
func consoleWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			return cols
		}
	}
	if c, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && c > 0 {
		return c
	}
	return 80
}

// columns measures text as the consoles draw it: East Asian wide characters
// take two columns, combining marks none, and the ambiguous ones (such as
// "…") one whatever the locale, as the Windows console and xterm draw them
// by default.
var columns = &runewidth.Condition{EastAsianWidth: false}

// fitWidth cuts s to fewer than width console columns, ending in "…" when
// cut. Fewer, not as many: the Windows console moves to the next row once
// the last column is written, and that row would be left stale by a redraw.
func fitWidth(s string, width int) string {
	max := width - 1
	if max < 2 || columns.StringWidth(s) <= max {
		return s
	}
	return columns.Truncate(s, max, "…")
}
