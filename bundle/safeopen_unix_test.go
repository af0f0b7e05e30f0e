//go:build unix

package bundle

import (
	"archive/zip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Hostile paths: none of these may block, read without end or leave the
// bundle.
func TestFIFOInputIsRefusedWithoutBlocking(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "input")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	done := make(chan error, 1)
	go func() { _, err := Open(fifo, DefaultLimits); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "named pipe") {
			t.Errorf("FIFO input: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("opening a FIFO input blocked")
	}
}

func TestSidecarFIFOAndDevice(t *testing.T) {
	dir := t.TempDir()
	zipPath := filepath.Join(dir, "b.zip")
	writeMinimalZip(t, zipPath)
	for _, c := range []struct {
		name string
		make func(p string) error
	}{
		{"fifo", func(p string) error { return syscall.Mkfifo(p, 0o600) }},
		{"/dev/zero", func(p string) error { return os.Symlink("/dev/zero", p) }},
	} {
		os.Remove(zipPath + ".sha256")
		if err := c.make(zipPath + ".sha256"); err != nil {
			t.Skip(err)
		}
		done := make(chan error, 1)
		go func() { _, err := verifySidecar(zipPath); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("%s sidecar: %v", c.name, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s sidecar blocked", c.name)
		}
	}
}

// A bundle directory named through a symbolic link is read through it.
func TestSymlinkedRootIsFollowed(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	os.MkdirAll(filepath.Join(real, "hns", "v2"), 0o755)
	os.WriteFile(filepath.Join(real, "hns", "v2", "networks.json"), []byte("[]"), 0o600)
	link := filepath.Join(dir, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Skip(err)
	}
	b := openTest(t, link)
	if !b.Has("hns/v2/networks.json") || b.Path() != link {
		t.Errorf("through the link: %v (path %s)", b.Names(), b.Path())
	}
}

// An entry swapped for a link out of the bundle after the walk is not read.
func TestEntrySwappedForLinkStaysInside(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "bundle")
	os.MkdirAll(filepath.Join(root, "host"), 0o755)
	entry := filepath.Join(root, "host", "os.json")
	os.WriteFile(entry, []byte("{}"), 0o600)
	secret := filepath.Join(dir, "secret")
	os.WriteFile(secret, []byte("outside"), 0o600)
	b := openTest(t, root)
	os.Remove(entry)
	os.Symlink(secret, entry)
	data, err := b.ReadFile("host/os.json")
	if err == nil || strings.Contains(string(data), "outside") {
		t.Errorf("read through a swapped-in link: %q %v", data, err)
	}
}

func TestManifestOverLimit(t *testing.T) {
	p := filepath.Join(t.TempDir(), "big.zip")
	f, _ := os.Create(p)
	zw := zip.NewWriter(f)
	w, _ := zw.Create(ManifestPath)
	w.Write([]byte(`{"format":"diag-bundle","version":1,"node":"x"` + strings.Repeat(" ", MaxManifestSize) + "}"))
	zw.Close()
	f.Close()
	_, err := Open(p, DefaultLimits)
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("a %d-byte manifest: %v", MaxManifestSize+50, err)
	}
}

func writeMinimalZip(t *testing.T, p string) {
	t.Helper()
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	w, _ := zw.Create(ManifestPath)
	w.Write([]byte(`{"format":"diag-bundle","version":1,"node":"x"}`))
	zw.Close()
	f.Close()
}
