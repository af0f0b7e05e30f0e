package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// A text report redirected from a console in code page 850 (PowerShell
// 5.1 reads it in that code page) is written in it: "·" is 0xFA there,
// "—" has no place and becomes "-"; no UTF-8 sequence reaches the pipe.
// JSON stays UTF-8.
func TestReportInConsoleCodePage(t *testing.T) {
	run850 := func(format string) []byte {
		var out, errb bytes.Buffer
		e := &env{stdout: &out, stderr: &errb, getenv: func(string) string { return "" }, now: time.Now,
			isTerminal: func() bool { return false }, termWidth: func() int { return 0 }, stderrTerminal: func() bool { return false },
			stdoutCodePage: func() uint32 { return 850 }}
		if code := run([]string{"analyze", "-o", format, seedBroken}, e); code != 3 {
			t.Fatalf("%s: exit %d: %s", format, code, errb.String())
		}
		return out.Bytes()
	}
	for _, format := range []string{"table", "markdown"} {
		got := run850(format)
		if bytes.Contains(got, []byte("·")) || bytes.Contains(got, []byte("—")) || !bytes.Contains(got, []byte{0xfa}) {
			t.Errorf("%s: not in code page 850: %q", format, got[:min(len(got), 300)])
		}
		if !strings.Contains(string(got), "OVL-01") {
			t.Errorf("%s: %q", format, got[:min(len(got), 300)])
		}
	}
	if js := run850("json"); !utf8.Valid(js) {
		t.Errorf("json is not UTF-8")
	}
}
