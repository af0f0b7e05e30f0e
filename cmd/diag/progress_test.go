package main

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wincni/diag/collectors"
)

// vtScreen is a terminal of a fixed width as the Windows console draws
// output (the stricter of the common ones): a character in the last column
// moves the cursor to the next row at once. It knows the escapes the
// progress views use.
type vtScreen struct {
	width int
	rows  [][]rune
	r, c  int
}

func (s *vtScreen) row() []rune {
	for len(s.rows) <= s.r {
		s.rows = append(s.rows, nil)
	}
	return s.rows[s.r]
}

func (s *vtScreen) put(ch rune) {
	line := s.row()
	for len(line) <= s.c {
		line = append(line, ' ')
	}
	line[s.c] = ch
	s.rows[s.r] = line
	s.c++
	if s.c == s.width {
		s.r, s.c = s.r+1, 0
	}
}

func (s *vtScreen) Write(p []byte) (int, error) {
	in := []rune(string(p))
	for i := 0; i < len(in); i++ {
		switch ch := in[i]; {
		case ch == '\n':
			s.r, s.c = s.r+1, 0
		case ch == '\r':
			s.c = 0
		case ch == 0x1b && i+1 < len(in) && in[i+1] == '[':
			j := i + 2
			for j < len(in) && (in[j] >= '0' && in[j] <= '9') {
				j++
			}
			n, _ := strconv.Atoi(string(in[i+2 : j]))
			line := s.row()
			switch in[j] {
			case 'K': // from the cursor (0) or the whole row (2)
				if n == 2 {
					s.rows[s.r] = nil
				} else if s.c < len(line) {
					s.rows[s.r] = line[:s.c]
				}
			case 'A':
				s.r = max(0, s.r-max(n, 1))
			case 'J': // from the cursor to the end of the screen
				if s.c < len(line) {
					s.rows[s.r] = line[:s.c]
				}
				s.rows = s.rows[:s.r+1]
			}
			i = j
		default:
			s.put(ch)
		}
	}
	return len(p), nil
}

// screen is the text on the console, trailing blanks and rows dropped.
func (s *vtScreen) screen() string {
	var b []string
	for _, r := range s.rows {
		b = append(b, strings.TrimRight(string(r), " "))
	}
	return strings.TrimRight(strings.Join(b, "\n"), "\n")
}

// The live collect view at 70 and at 120 columns, with states longer than
// a row (an error message): every redraw leaves exactly one row per
// collector, none stale, each cut with "…".
func TestCollectViewFitsWidth(t *testing.T) {
	for _, width := range []int{70, 120} {
		con := &vtScreen{width: width}
		plan := []collectors.Collector{{ID: "os"}, {ID: "firewall"}, {ID: "vfp"}}
		v := newCollectView(con, true, plan)
		v.width = func() int { return width }
		long := "powershell: exit status 1: " + strings.Repeat("Get-NetFirewallPortFilter : Access is denied. ", 3)
		v.event(collectors.Event{ID: "os"})
		v.event(collectors.Event{ID: "firewall"})
		v.event(collectors.Event{ID: "firewall", Done: true, Status: "failed", Duration: time.Second, Err: long})
		v.line("kubernetes: credentials from " + strings.Repeat("/very/long/path", 10))
		v.event(collectors.Event{ID: "os", Done: true, Status: "ok", Duration: time.Second, Files: 1})
		v.close()
		rows := strings.Split(con.screen(), "\n")
		live := rows[len(rows)-3:]
		for i, id := range []string{"os", "firewall", "vfp"} {
			if !strings.HasPrefix(live[i], "  "+id) || len([]rune(live[i])) >= width {
				t.Errorf("%d columns: row %d = %q", width, i, live[i])
			}
		}
		if !strings.HasSuffix(live[1], "…") {
			t.Errorf("%d columns: the failed collector's row is not cut: %q", width, live[1])
		}
		for _, r := range rows[:len(rows)-3] {
			if strings.HasPrefix(r, "  os") || strings.HasPrefix(r, "  firewall") || strings.HasPrefix(r, "  vfp") || strings.HasPrefix(r, "Get-Net") {
				t.Errorf("%d columns: stale row %q in\n%s", width, r, con.screen())
			}
		}
	}
}

// analyze's one progress line at 70 columns: a long input name is cut, so
// that \r rewrites the whole of it, and done leaves nothing.
func TestProgressFitsWidth(t *testing.T) {
	defer func(d time.Duration) { progressAfter = d }(progressAfter)
	progressAfter = 0
	con := &vtScreen{width: 70}
	p := newProgress(con, true)
	p.width = func() int { return 70 }
	p.step("reading", 1, 2, "/home/support/tickets/"+strings.Repeat("case-12345/", 8)+"diag-win-1.zip")
	if s := con.screen(); strings.Contains(s, "\n") || !strings.HasSuffix(s, "…") {
		t.Errorf("after one step: %q", s)
	}
	p.step("reading", 2, 2, "win-2.zip")
	if s := con.screen(); s != "reading 2/2: win-2.zip" {
		t.Errorf("after the second step: %q", s)
	}
	p.done()
	if s := con.screen(); s != "" {
		t.Errorf("after done: %q", s)
	}
}
