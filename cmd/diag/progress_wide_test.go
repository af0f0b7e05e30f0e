package main

import (
	"strings"
	"testing"
	"time"

	"github.com/wincni/diag/collectors"
)

// cells is how many console columns s takes: the CJK ideographs, kana and
// fullwidth forms take two (as the Windows console, Windows Terminal and
// xterm draw them), the rest one.
func cells(s string) int {
	n := 0
	for _, r := range s {
		switch {
		case r >= 0x1100 && r <= 0x115f, r >= 0x2e80 && r <= 0xa4cf, r >= 0xac00 && r <= 0xd7a3,
			r >= 0xf900 && r <= 0xfaff, r >= 0xfe30 && r <= 0xfe4f, r >= 0xff00 && r <= 0xff60, r >= 0xffe0 && r <= 0xffe6:
			n += 2
		default:
			n++
		}
	}
	return n
}

// A collector's error in the node's language (a Japanese Windows says
// "Access is denied." as アクセスが拒否されました。) still fits one row
// of the live view: the row is cut by the columns it takes, not by its
// characters, else it wraps and each redraw leaves a stale row.
func TestCollectViewFitsWideCharacters(t *testing.T) {
	const width = 70
	var out strings.Builder
	v := newCollectView(&out, true, []collectors.Collector{{ID: "firewall"}})
	v.width = func() int { return width }
	v.event(collectors.Event{ID: "firewall"})
	v.event(collectors.Event{ID: "firewall", Done: true, Status: "failed", Duration: time.Second,
		Err: "powershell: アクセスが拒否されました。管理者として実行してください。"})
	v.close()
	for _, row := range strings.Split(out.String(), "\n") {
		if i := strings.LastIndex(row, "\x1b[2K"); i >= 0 {
			row = row[i+len("\x1b[2K"):]
		}
		if strings.HasPrefix(row, "  firewall") && cells(row) >= width {
			t.Errorf("a row of %d columns at %d: %q", cells(row), width, row)
		}
	}
}

// fitWidth keeps a line that fits, cuts a wide one between characters (never
// through a two-column one) to fewer columns than the console's, and keeps
// combining marks with their letter.
func TestFitWidthColumns(t *testing.T) {
	for _, c := range []struct {
		in    string
		width int
		want  string
	}{
		{"short", 10, "short"},
		{"abcdefghij", 10, "abcdefgh…"},
		{"アクセスが拒否", 10, "アクセス…"},
		{"アクセス", 9, "アクセス"},
		{"e\u0301e\u0301e\u0301", 4, "e\u0301e\u0301e\u0301"},
	} {
		got := fitWidth(c.in, c.width)
		if got != c.want {
			t.Errorf("fitWidth(%q, %d) = %q, want %q", c.in, c.width, got, c.want)
		}
		if cells(got) >= c.width && got != c.in {
			t.Errorf("fitWidth(%q, %d) takes %d columns", c.in, c.width, cells(got))
		}
	}
}
