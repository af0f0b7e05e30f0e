package ownerfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A file Create makes passes Check (on Windows: its DACL read back); one
// written the ordinary way does not; an existing file is never replaced.
func TestCreateCheck(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "team.key")
	f, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("secret\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "windows" && os.Getenv("DIAG_UNDER_WINE") == "1" {
		// Wine's own limit, not ownerfile's: TestOwnerOnlyDescriptor reads
		// back the descriptor Create gives Wine.
		t.Log("Wine 8.0 keeps no file ACL: it maps a DACL to Unix mode bits (the user's entry to owner and group) and makes one up from them when asked")
	} else if err := Check(p); err != nil {
		t.Errorf("Check of a file Create made: %v", err)
	}
	if b, err := os.ReadFile(p); err != nil || string(b) != "secret\n" {
		t.Errorf("read back by its owner: %q %v", b, err)
	}
	if f, err := Create(p); !errors.Is(err, fs.ErrExist) {
		if f != nil {
			f.Close()
		}
		t.Errorf("Create of an existing file: %v, want fs.ErrExist", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "secret\n" {
		t.Errorf("the existing file was changed: %q", b)
	}

	plain := filepath.Join(dir, "plain.key")
	if err := os.WriteFile(plain, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Check(plain); err == nil {
		t.Errorf("Check of a file written with the folder's permissions: nil, want an error")
	}
	if err := Check(filepath.Join(dir, "absent")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Check of an absent file: %v, want fs.ErrNotExist", err)
	}
}

// A temporary file is owner-only, hidden beside its destination, new each
// time, and keeps its protection when renamed onto the destination.
func TestCreateTemp(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "b.zip.key")
	a, err := CreateTemp(p)
	if err != nil {
		t.Fatal(err)
	}
	b, err := CreateTemp(p)
	if err != nil {
		t.Fatal(err)
	}
	a.Close()
	b.Close()
	if a.Name() == b.Name() || filepath.Dir(a.Name()) != dir || !strings.HasPrefix(filepath.Base(a.Name()), ".b.zip.key.tmp-") {
		t.Errorf("temporary names %s, %s", a.Name(), b.Name())
	}
	if err := os.Rename(a.Name(), p); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" || os.Getenv("DIAG_UNDER_WINE") != "1" { // Wine keeps no ACL (above)
		if err := Check(p); err != nil {
			t.Errorf("after the rename: %v", err)
		}
	}
}
