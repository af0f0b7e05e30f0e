package main

import (
	"fmt"
	"io"
	"time"
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
}

func newProgress(w io.Writer, terminal bool) *progress {
	return &progress{w: w, on: terminal, start: time.Now()}
}

func (p *progress) step(verb string, i, n int, what string) {
	if !p.on || time.Since(p.start) < progressAfter {
		return
	}
	fmt.Fprintf(p.w, "\r\033[K%s %d/%d: %s", verb, i, n, what)
	p.shown = true
}

// done clears the line.
func (p *progress) done() {
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
