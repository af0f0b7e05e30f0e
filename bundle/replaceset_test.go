package bundle

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func writeTest(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

func readTest(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// zipAndSum writes b.zip and b.zip.sha256 in a new directory, each with
// its old content and its new one beside it in a .tmp.
func zipAndSum(t *testing.T) (dir, zip, sum string) {
	t.Helper()
	dir = t.TempDir()
	zip, sum = filepath.Join(dir, "b.zip"), filepath.Join(dir, "b.zip.sha256")
	writeTest(t, zip, "old zip")
	writeTest(t, sum, "old sum")
	writeTest(t, zip+".tmp", "new zip")
	writeTest(t, sum+".tmp", "new sum")
	return dir, zip, sum
}

// noneAside fails when a file moved aside is still in dir.
func noneAside(t *testing.T, dir string) {
	t.Helper()
	if left, _ := filepath.Glob(filepath.Join(dir, ".*.old-*")); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

func TestReplaceAll(t *testing.T) {
	dir, zip, sum := zipAndSum(t)
	key := filepath.Join(dir, "b.zip.key") // absent before: created
	writeTest(t, key+".tmp", "new key")
	if err := replaceSet([]replaceFile{{Tmp: zip + ".tmp", Dst: zip}, {Tmp: sum + ".tmp", Dst: sum}, {Tmp: key + ".tmp", Dst: key}}); err != nil {
		t.Fatal(err)
	}
	if readTest(t, zip) != "new zip" || readTest(t, sum) != "new sum" || readTest(t, key) != "new key" {
		t.Errorf("not replaced: %q %q %q", readTest(t, zip), readTest(t, sum), readTest(t, key))
	}
	noneAside(t, dir)
}

// A folder in the place of the second file (no platform renames a file
// over it): the first is left as it was and both new files are still there.
func TestReplaceNoneWhenOneCannotBe(t *testing.T) {
	dir := t.TempDir()
	zip, sum := filepath.Join(dir, "b.zip"), filepath.Join(dir, "b.zip.sha256")
	writeTest(t, zip, "old zip")
	if err := os.MkdirAll(filepath.Join(sum, "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeTest(t, zip+".tmp", "new zip")
	writeTest(t, dir+"/sum.tmp", "new sum")
	err := replaceSet([]replaceFile{{Tmp: zip + ".tmp", Dst: zip}, {Tmp: dir + "/sum.tmp", Dst: sum}})
	var he *heldError
	if !errors.As(err, &he) || he.Path != sum {
		t.Fatalf("Replace: %v, want a *heldError for %s", err, sum)
	}
	if readTest(t, zip) != "old zip" || readTest(t, zip+".tmp") != "new zip" || readTest(t, dir+"/sum.tmp") != "new sum" {
		t.Errorf("after the failure: %q %q %q", readTest(t, zip), readTest(t, zip+".tmp"), readTest(t, dir+"/sum.tmp"))
	}
	noneAside(t, dir)
}

func TestReplaceNoReplace(t *testing.T) {
	dir, zip, sum := zipAndSum(t)
	writeTest(t, zip, "someone else's")
	err := replaceSet([]replaceFile{{Tmp: sum + ".tmp", Dst: sum}, {Tmp: zip + ".tmp", Dst: zip, NoReplace: true}})
	if !errors.Is(err, fs.ErrExist) {
		t.Fatalf("Replace: %v, want fs.ErrExist", err)
	}
	if readTest(t, zip) != "someone else's" || readTest(t, sum) != "old sum" {
		t.Errorf("after the failure: %q %q", readTest(t, zip), readTest(t, sum))
	}
	noneAside(t, dir)
	os.Remove(zip)
	if err := replaceSet([]replaceFile{{Tmp: sum + ".tmp", Dst: sum}, {Tmp: zip + ".tmp", Dst: zip, NoReplace: true}}); err != nil {
		t.Fatal(err)
	}
	if readTest(t, zip) != "new zip" || readTest(t, sum) != "new sum" {
		t.Errorf("not replaced: %q %q", readTest(t, zip), readTest(t, sum))
	}
}

// A file with no new content goes with the set, and comes back when the
// set fails.
func TestReplaceRemoves(t *testing.T) {
	dir := t.TempDir()
	zip, old := filepath.Join(dir, "b.zip"), filepath.Join(dir, "b.zip.map.json")
	writeTest(t, zip, "old zip")
	writeTest(t, old, "old map")
	writeTest(t, zip+".tmp", "new zip")
	if err := os.MkdirAll(filepath.Join(dir, "b.zip.sha256", "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	writeTest(t, dir+"/sum.tmp", "new sum")
	if err := replaceSet([]replaceFile{{Tmp: zip + ".tmp", Dst: zip}, {Dst: old}, {Tmp: dir + "/sum.tmp", Dst: filepath.Join(dir, "b.zip.sha256")}}); err == nil {
		t.Fatal("replaced over a folder")
	}
	if readTest(t, old) != "old map" || readTest(t, zip) != "old zip" {
		t.Errorf("after the failure: %q %q", readTest(t, old), readTest(t, zip))
	}
	if err := replaceSet([]replaceFile{{Tmp: zip + ".tmp", Dst: zip}, {Dst: old}}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); err == nil || readTest(t, zip) != "new zip" {
		t.Errorf("%s still there, or %s not replaced", old, zip)
	}
	noneAside(t, dir)
}
