package bundle

import (
	"crypto/rand"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/wincni/diag/manifest"
)

// A disk that fills up while the zip is written leaves no half-written
// bundle behind. Root only: it mounts a 64 KiB tmpfs.
func TestDiskFullLeavesNoZip(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a small tmpfs")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount tmpfs: %v %s", err, out)
	}
	defer exec.Command("umount", dir).Run()
	out := filepath.Join(dir, "b.zip")
	w, err := Create(out, manifest.Manifest{Node: "n"})
	if err != nil {
		t.Fatal(err)
	}
	// Random bytes do not compress: 256 KiB cannot fit in 64 KiB.
	big := make([]byte, 256<<10)
	rand.Read(big)
	if err := w.WriteFile("capture/diag.pcapng", big); err != nil {
		t.Fatal(err) // staging is in the system temp directory, not on the small disk
	}
	if _, err := w.Close(); err == nil {
		t.Fatal("Close on a full disk succeeded")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("left behind on the full disk: %v", entries)
	}
}
