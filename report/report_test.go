package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wincni/diag/analyzers"
	"github.com/wincni/diag/bundle"
	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/snapshot"
)

var update = flag.Bool("update", false, "rewrite golden files")

func buildReport(t *testing.T, names ...string) *Report {
	t.Helper()
	var snaps []*snapshot.Snapshot
	for _, name := range names {
		b, err := bundle.Open(filepath.Join("..", "testdata", "bundles", name), bundle.DefaultLimits)
		if err != nil {
			t.Fatal(err)
		}
		s, err := snapshot.Load(b)
		b.Close()
		if err != nil {
			t.Fatal(err)
		}
		s.Source = name // stable across machines
		snaps = append(snaps, s)
	}
	now := time.Date(2026, 11, 22, 5, 0, 0, 0, time.UTC)
	return Build(Tool{Name: "diag", Version: "test"}, &now, snaps, analyzers.Run(snaps, analyzers.Selection{}))
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run go test ./report -update and review the diff):\n%s", path, got)
	}
}

func TestGolden(t *testing.T) {
	for _, c := range []struct {
		golden string
		inputs []string
	}{
		{"seed-broken", []string{"seed-broken"}},
		{"seed-fixed", []string{"seed-fixed"}},
		{"seed-both", []string{"seed-fixed", "seed-broken"}},
	} {
		r := buildReport(t, c.inputs...)
		var table, js bytes.Buffer
		if err := WriteTable(&table, r, TableOptions{Width: 100}); err != nil {
			t.Fatal(err)
		}
		if err := WriteJSON(&js, r); err != nil {
			t.Fatal(err)
		}
		golden(t, c.golden+".table.golden", table.Bytes())
		golden(t, c.golden+".json.golden", js.Bytes())
	}
}

func TestTableColourAndWidth(t *testing.T) {
	r := buildReport(t, "seed-broken")
	var plain, coloured bytes.Buffer
	WriteTable(&plain, r, TableOptions{Width: 80})
	WriteTable(&coloured, r, TableOptions{Width: 80, Color: true})
	if strings.Contains(plain.String(), "\x1b[") || !strings.Contains(coloured.String(), "\x1b[") {
		t.Error("colour option not honoured")
	}
	for _, line := range strings.Split(plain.String(), "\n") {
		if n := len([]rune(line)); n > 80 {
			t.Errorf("line of %d columns at width 80: %q", n, line)
		}
	}
}

func TestClusterFindingsAreShown(t *testing.T) {
	r := &Report{Inputs: []Input{{Node: "a", Path: "a.zip"}}, Findings: []finding.Finding{
		{ID: "XN-01", Severity: finding.Fail, Summary: "two nodes share ManagementIP 10.0.2.15", Evidence: []finding.Evidence{}},
	}}
	var out bytes.Buffer
	WriteTable(&out, r, TableOptions{})
	if !strings.Contains(out.String(), "cluster") || !strings.Contains(out.String(), "XN-01") {
		t.Errorf("cluster finding missing:\n%s", out.String())
	}
}

func TestWorst(t *testing.T) {
	r := buildReport(t, "seed-broken")
	if r.Worst() != finding.Fail || r.Summary.Fail != 1 {
		t.Errorf("worst %v summary %+v", r.Worst(), r.Summary)
	}
}
