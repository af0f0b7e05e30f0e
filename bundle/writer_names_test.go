package bundle

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/wincni/diag/manifest"
)

// foldedNames are entry names a Windows file system folds into one file
// (case) or takes for a device (nul, con, com1, aux, with any extension).
var foldedNames = []string{"logs/Kubelet.log", "logs/kubelet.log", "logs/KUBELET.LOG", "logs/nul.txt", "logs/con.log", "com1.txt", "aux.json", "config/cni/NUL"}

// Every entry keeps its own content, whatever the platform's file system
// makes of its name: the writer never stages an entry under it.
func TestWriterFoldedAndDeviceNames(t *testing.T) {
	out := filepath.Join(t.TempDir(), "b.zip")
	w, err := Create(out, manifest.Manifest{Node: "win-1"})
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range foldedNames {
		if err := w.WriteFile(name, []byte(fmt.Sprintf("entry %d: %s\n", i, name))); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b := openTest(t, out)
	if problems, err := Verify(b); err != nil || len(problems) > 0 {
		t.Errorf("verify: %v %v", problems, err)
	}
	for i, name := range foldedNames {
		got, err := b.ReadFile(name)
		if want := fmt.Sprintf("entry %d: %s\n", i, name); err != nil || string(got) != want {
			t.Errorf("%s: %q %v, want %q", name, got, err, want)
		}
	}
}
