package bundle

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/wincni/diag/manifest"
)

// Node names become file names through FileNamePart: Windows' device names
// (valid Kubernetes node names) are moved off the device, in any case and
// before any extension; the rest stay as they are.
func TestFileNamePart(t *testing.T) {
	for in, want := range map[string]string{
		"win-1":           "win-1",
		"win-1.contoso":   "win-1.contoso",
		"con":             "con_",
		"CON":             "CON_",
		"nul":             "nul_",
		"aux":             "aux_",
		"prn":             "prn_",
		"com1":            "com1_",
		"lpt1":            "lpt1_",
		"LPT9":            "LPT9_",
		"con.example.com": "con_.example.com",
		"console":         "console",
		"com10":           "com10",
		"com":             "com",
		"lptx":            "lptx",
		"nul-1":           "nul-1",
		"a/b\\c:d":        "a_b_c_d",
		"":                "_",
		".":               "_",
		"..":              "__",
	} {
		if got := FileNamePart(in); got != want {
			t.Errorf("FileNamePart(%q) = %q, want %q", in, got, want)
		}
	}
}

// A bundle of each device-named node is written, read back and verified
// under its file name (on Windows, under Wine too: con.zip would open the
// console).
func TestWriteDeviceNamedNodes(t *testing.T) {
	dir := t.TempDir()
	for _, node := range []string{"con", "nul", "aux", "com1", "prn", "lpt1"} {
		out := filepath.Join(dir, FileNamePart(node)+".zip")
		w, err := Create(out, manifest.Manifest{Node: node})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteFile("host/os.json", []byte(`{}`)); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Close(); err != nil {
			t.Fatalf("%s: %v", node, err)
		}
		b, err := Open(out, DefaultLimits)
		if err != nil {
			t.Fatalf("%s: %v", node, err)
		}
		problems, err := Verify(b)
		b.Close()
		if err != nil || len(problems) > 0 {
			t.Errorf("%s: %v %v", out, problems, err)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 12 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("files %v, want 6 bundles and their sidecars", names)
	}
}
