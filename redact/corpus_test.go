package redact

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// marker is in every planted secret of testdata/secrets.txt.
const marker = "S3CR3T"

type corpusCase struct {
	name, kind, in string
	keep           []string
}

// readCorpus reads "### name | kind" cases; an input ends at "--- keep"
// (secrets.txt) or at the next case (lookalikes.txt). Lines starting with
// "#" before the first case are comments.
func readCorpus(t *testing.T, path string) []corpusCase {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cases []corpusCase
	var cur *corpusCase
	inKeep := false
	for _, l := range strings.SplitAfter(string(data), "\n") {
		switch {
		case strings.HasPrefix(l, "### "):
			cases = append(cases, corpusCase{})
			cur = &cases[len(cases)-1]
			head := strings.TrimSpace(l[4:])
			if i := strings.LastIndex(head, " | "); i >= 0 {
				cur.name, cur.kind = head[:i], head[i+3:]
			} else {
				cur.name = head
			}
			inKeep = false
		case cur == nil:
		case strings.TrimSpace(l) == "--- keep":
			inKeep = true
		case inKeep:
			if k := strings.TrimRight(l, "\n"); strings.TrimSpace(k) != "" {
				cur.keep = append(cur.keep, k)
			}
		default:
			cur.in += l
		}
	}
	for i := range cases {
		// The blank line before the next case separates, it is not input.
		if strings.HasSuffix(cases[i].in, "\n\n") {
			cases[i].in = strings.TrimSuffix(cases[i].in, "\n")
		}
	}
	return cases
}

func TestCorpusSecrets(t *testing.T) {
	cases := readCorpus(t, "testdata/secrets.txt")
	if len(cases) < 40 {
		t.Fatalf("only %d cases read", len(cases))
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !strings.Contains(c.in, marker) {
				t.Fatalf("case plants no %s", marker)
			}
			out, counts := Text([]byte(c.in))
			if bytes.Contains(out, []byte(marker)) {
				t.Errorf("secret left in:\n%s", out)
			}
			if c.kind != "" && countOf(counts, c.kind) == 0 {
				t.Errorf("counts %v, want a %s", counts, c.kind)
			}
			for _, k := range c.keep {
				if !bytes.Contains(out, []byte(k)) {
					t.Errorf("lost %q:\n%s", k, out)
				}
			}
			checkStable(t, out)
		})
	}
}

func TestCorpusLookalikes(t *testing.T) {
	cases := readCorpus(t, "testdata/lookalikes.txt")
	if len(cases) < 15 {
		t.Fatalf("only %d cases read", len(cases))
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, counts := Text([]byte(c.in))
			if string(out) != c.in || len(counts) != 0 {
				t.Errorf("changed (%v):\n%s", counts, diffLines(c.in, string(out)))
			}
		})
	}
}

// checkStable: a second pass changes nothing.
func checkStable(t *testing.T, out []byte) {
	t.Helper()
	again, _ := Text(out)
	if !bytes.Equal(again, out) {
		t.Errorf("second pass changed\n%s\nto\n%s", out, again)
	}
}

func countOf(counts []Count, kind string) int {
	for _, c := range counts {
		if c.Kind == kind {
			return c.Count
		}
	}
	return 0
}

func diffLines(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	var d strings.Builder
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			d.WriteString("- " + x + "\n+ " + y + "\n")
		}
	}
	return d.String()
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
