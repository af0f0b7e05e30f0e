package main

import (
	"errors"
	"fmt"
	"strings"
)

// Exit codes (DESIGN.md).
const (
	exitOK       = 0
	exitInternal = 1
	exitUsage    = 2 // bad usage or unreadable input
	exitFindings = 3 // findings at or above --fail-on; a partial bundle
)

// exitError carries an exit code; a nil err means "print nothing".
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

func usageErrorf(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

// badInput is an error that says it is the input's or the output's, not
// diag's (bundle.Error, formats.ParseError, capture.InputError, and
// bundle.KeptError: the work is kept beside an output another program
// holds): exit 2 with its one line, not "a bug in diag".
type badInput interface {
	error
	BadInput() bool
}

// exitCode maps an error to the exit code and the one line to print.
func exitCode(err error) (int, string) {
	if err == nil {
		return exitOK, ""
	}
	var ee *exitError
	var bad badInput
	code := exitInternal
	switch {
	case errors.As(err, &ee):
		code = ee.code
		if ee.err == nil {
			return code, ""
		}
	case errors.As(err, &bad) && bad.BadInput():
		code = exitUsage
	}
	return code, oneLine(err.Error())
}

// oneLine keeps messages to a single line: a user sees one clear line.
// cobra's "Did you mean this?" suggestions are folded into it.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if head, sugg, ok := strings.Cut(s, "\n\nDid you mean this?\n"); ok {
		var names []string
		for _, l := range strings.Split(sugg, "\n") {
			if n := strings.TrimSpace(l); n != "" {
				names = append(names, n)
			}
		}
		s = strings.TrimSpace(head) + "; did you mean " + strings.Join(names, ", ") + "?"
	}
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
