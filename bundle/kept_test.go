package bundle

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/wincni/diag/manifest"
)

// writeSmall writes a one-entry bundle to out and returns Close's error.
func writeSmall(t *testing.T, out string) error {
	t.Helper()
	w, err := Create(out, manifest.Manifest{Node: "win-1"})
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
	if ke.Kept != want || (ke.Path != out && ke.Path != out+".sha256") {
		t.Errorf("kept %s for %s, want %s", ke.Kept, ke.Path, want)
	}
	b := openTest(t, ke.Kept)
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

// The sidecar, not the zip, cannot be replaced (a folder in its place here;
// on Windows another program having it open): the zip is not replaced
// either, and the new pair is kept beside, consistent.
func TestCloseKeepsPairWhenSidecarHeld(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "b.zip")
	if err := os.WriteFile(out, []byte("the last bundle"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(out+".sha256", "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	err := writeSmall(t, out)
	checkKept(t, err, out)
	var ke *KeptError
	errors.As(err, &ke)
	if ke.Path != out+".sha256" {
		t.Errorf("held %s, want %s", ke.Path, out+".sha256")
	}
	if b, _ := os.ReadFile(out); string(b) != "the last bundle" {
		t.Errorf("%s changed: %q", out, b)
	}
}

// A companion (anonymize's key) is put in place with the bundle, and kept
// beside the kept bundle when the output cannot be replaced.
func TestCloseCompanion(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "b.zip")
	write := func(content string) error {
		w, err := Create(out, manifest.Manifest{Node: "win-1"})
		if err != nil {
			t.Fatal(err)
		}
		tmp := filepath.Join(dir, ".b.zip.key.tmp")
		if err := os.WriteFile(tmp, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		w.Companion(".key", tmp)
		if err := w.WriteFile("host/os.json", []byte(`{}`)); err != nil {
			t.Fatal(err)
		}
		_, err = w.Close()
		return err
	}
	if err := write("key 1"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(out + ".key"); string(b) != "key 1" {
		t.Errorf("key: %q", b)
	}
	if err := os.Remove(out + ".sha256"); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(out+".sha256", "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	err := write("key 2")
	var ke *KeptError
	if !errors.As(err, &ke) {
		t.Fatalf("Close: %v, want a *KeptError", err)
	}
	if b, _ := os.ReadFile(out + ".key"); string(b) != "key 1" {
		t.Errorf("the output's key was replaced: %q", b)
	}
	if b, _ := os.ReadFile(ke.Kept + ".key"); string(b) != "key 2" {
		t.Errorf("kept key: %q", b)
	}
	if !strings.Contains(err.Error(), ke.Kept) || !strings.Contains(err.Error(), ".key") {
		t.Errorf("message: %v", err)
	}
}
