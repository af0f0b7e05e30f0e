package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files with what the tests produce")

// Updating says whether this run rewrites golden files.
func Updating() bool { return *update }

// Check compares got with the file at path. With -update it writes got
// there first. A difference is reported with the first line that differs
// and the command that refreshes the file.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test with -update)", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < len(gl) && i < len(wl); i++ {
		if gl[i] != wl[i] {
			t.Errorf("%s differs at line %d:\n got: %s\nwant: %s\n(run go test with -update and review the diff)", path, i+1, gl[i], wl[i])
			return
		}
	}
	t.Errorf("%s differs in length: %d lines, want %d (run go test with -update and review the diff)", path, len(gl), len(wl))
}
