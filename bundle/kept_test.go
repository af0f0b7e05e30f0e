package bundle

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// writeSmall writes a one-entry bundle to out and returns Close's error.
func writeSmall(t *testing.T, out string) error {
	t.Helper()
	w, err := Create(out, Manifest{Node: "win-1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteFile("host/os.json", []byte(`{"ProductName":"Windows Server 2022"}`)); err != nil {
		t.Fatal(err)
	}
	_, err = w.Close()
	return err
}

// checkKept: the bundle is kept beside out, complete, with its sidecar.
func checkKept(t *testing.T, err error, out string) {
	t.Helper()
	var ke *KeptError
	if !errors.As(err, &ke) {
		t.Fatalf("Close: %v, want a *KeptError", err)
	}
	want := filepath.Join(filepath.Dir(out), "b.new.zip")
	if ke.Kept != want || ke.Path != out {
		t.Errorf("kept %s for %s, want %s", ke.Kept, ke.Path, want)
	}
	b, err := Open(ke.Kept, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if problems, err := Verify(b); err != nil || len(problems) > 0 || !b.Has("host/os.json") {
		t.Errorf("kept bundle: %v %v", problems, err)
	}
	if _, err := os.Stat(ke.Kept + ".sha256"); err != nil {
		t.Errorf("kept bundle's sidecar: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(out), ".b.zip.tmp-*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// A complete bundle whose output cannot be replaced is kept beside it,
// not thrown away; a second such run takes the next free name.
func TestCloseKeepsBundleBeside(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "b.zip")
	// A folder in the way: no platform renames a file over it.
	if err := os.MkdirAll(filepath.Join(out, "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	checkKept(t, writeSmall(t, out), out)
	var ke *KeptError
	if err := writeSmall(t, out); !errors.As(err, &ke) || ke.Kept != filepath.Join(dir, "b.new-2.zip") {
		t.Errorf("second run: %v", err)
	}
}

// On Windows a file another program has open cannot be replaced (the
// rename is refused): the bundle is kept beside it. Elsewhere it is
// replaced.
func TestCloseOverOpenFile(t *testing.T) {
	out := filepath.Join(t.TempDir(), "b.zip")
	if err := os.WriteFile(out, []byte("the last bundle"), 0o600); err != nil {
		t.Fatal(err)
	}
	held, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	err = writeSmall(t, out)
	if runtime.GOOS != "windows" {
		if err != nil {
			t.Fatalf("Close: %v", err)
		}
		return
	}
	checkKept(t, err, out)
	if b, _ := os.ReadFile(out); string(b) != "the last bundle" {
		t.Errorf("%s changed: %q", out, b)
	}
}
