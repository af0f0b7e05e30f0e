package bundle

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/wincni/diag/manifest"
)

func writeTestBundle(t *testing.T, dir string) string {
	t.Helper()
	out := filepath.Join(dir, "bundle.zip")
	w, err := Create(out, manifest.Manifest{Node: "win-1", OS: "windows"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteFile("hns/v1/networks.json", []byte(`[{"Name":"Calico"}]`)); err != nil {
		t.Fatal(err)
	}
	e, err := w.Create("host/os.json")
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(e, `{"hostname":"win-1"}`)
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	w.AddCollector(manifest.CollectorResult{ID: "hns", Status: manifest.StatusOK, DurationMS: 12})
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestWriteReadRoundTrip(t *testing.T) {
	dir := t.TempDir()
	out := writeTestBundle(t, dir)

	for _, p := range []string{out, out + ".sha256"} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v, want 0600", p, fi.Mode().Perm())
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("output directory holds %d files, want the zip and its sidecar only", len(entries))
	}

	b := openTest(t, out)
	if b.Manifest == nil || b.Manifest.Node != "win-1" || len(b.Manifest.Files) != 2 {
		t.Fatalf("manifest = %+v", b.Manifest)
	}
	if got := strings.Join(b.Names(), ","); got != "hns/v1/networks.json,host/os.json,manifest.json" {
		t.Errorf("names = %s", got)
	}
	data, err := b.ReadFile("hns/v1/networks.json")
	if err != nil || string(data) != `[{"Name":"Calico"}]` {
		t.Errorf("ReadFile = %q, %v", data, err)
	}
	problems, err := Verify(b)
	if err != nil || len(problems) != 0 {
		t.Errorf("Verify = %v, %v", problems, err)
	}
}

func TestWriterRejectsBadNamesAndDuplicates(t *testing.T) {
	w, err := Create(filepath.Join(t.TempDir(), "b.zip"), manifest.Manifest{Node: "n"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	for _, name := range []string{"../x", "/etc/passwd", "a/../b", `a\b`, "manifest.json", ""} {
		if err := w.WriteFile(name, nil); err == nil {
			t.Errorf("WriteFile(%q) accepted", name)
		}
	}
	if err := w.WriteFile("a.txt", nil); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteFile("a.txt", nil); err == nil {
		t.Error("duplicate entry accepted")
	}
}

func TestAbortedEntryLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "b.zip")
	w, _ := Create(out, manifest.Manifest{Node: "n"})
	e, _ := w.Create("half.txt")
	e.Write([]byte("partial"))
	e.Abort()
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b := openTest(t, out)
	if b.Has("half.txt") || len(b.Manifest.Files) != 0 {
		t.Errorf("aborted entry was kept: %v", b.Names())
	}
}

func TestFailedCloseLeavesNoZip(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "missing-dir", "b.zip")
	w, _ := Create(out, manifest.Manifest{Node: "n"})
	w.WriteFile("a.txt", []byte("x"))
	if _, err := w.Close(); err == nil {
		t.Fatal("Close into a missing directory succeeded")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}

func TestVerifyFindsTamperedEntry(t *testing.T) {
	dir := t.TempDir()
	out := writeTestBundle(t, dir)
	// Rebuild the zip with one entry changed but the original manifest.
	src, _ := Open(out, DefaultLimits)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range src.Names() {
		data, _ := src.ReadFile(name)
		if name == "host/os.json" {
			data = []byte(`{"hostname":"evil"}`)
		}
		f, _ := zw.Create(name)
		f.Write(data)
	}
	zw.Close()
	src.Close()
	if err := os.WriteFile(out, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	b := openTest(t, out)
	problems, err := Verify(b)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for _, p := range problems {
		kinds[p.Kind] = p.Entry
	}
	if kinds["checksum"] != "host/os.json" {
		t.Errorf("checksum problem not reported for host/os.json: %v", problems)
	}
	if _, ok := kinds["sidecar"]; !ok {
		t.Errorf("sidecar mismatch not reported: %v", problems)
	}
	if _, ok := kinds["checksum"]; ok && kinds["checksum"] == "hns/v1/networks.json" {
		t.Errorf("untouched entry reported: %v", problems)
	}
}

func TestVerifyWithoutManifest(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "x.json"), []byte("{}"), 0o600)
	b, err := Open(dir, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close() // Windows deletes no file or folder still open
	if _, err := Verify(b); !errors.Is(err, ErrNoManifest) {
		t.Errorf("Verify without manifest: %v", err)
	}
}

// zipOf builds a zip from name → content pairs, in order.
func zipOf(t testing.TB, entries ...string) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := 0; i < len(entries); i += 2 {
		f, err := zw.CreateHeader(&zip.FileHeader{Name: entries[i], Method: zip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(f, entries[i+1])
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func openBytes(data []byte, lim Limits) (*Bundle, error) {
	return OpenZip(bytes.NewReader(data), int64(len(data)), "bad.zip", lim)
}

func TestReaderRejectsHostileZips(t *testing.T) {
	symlink := func() []byte {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		h := &zip.FileHeader{Name: "hns/link"}
		h.SetMode(os.ModeSymlink | 0o777)
		f, _ := zw.CreateHeader(h)
		io.WriteString(f, "/etc/passwd")
		zw.Close()
		return buf.Bytes()
	}
	small := Limits{MaxEntries: 3, MaxEntrySize: 1 << 10, MaxTotalSize: 2 << 10}
	big := strings.Repeat("x", 2<<10)
	cases := []struct {
		name string
		zip  []byte
		lim  Limits
		want string
	}{
		{"zip slip", zipOf(t, "../../evil.txt", "x"), DefaultLimits, "escapes the bundle"},
		{"zip slip backslash", zipOf(t, `hns\..\..\evil.txt`, "x"), DefaultLimits, "escapes the bundle"},
		{"absolute", zipOf(t, "/etc/cron.d/x", "x"), DefaultLimits, "absolute path"},
		{"drive letter", zipOf(t, `C:\Windows\x`, "x"), DefaultLimits, "absolute"},
		{"symlink", symlink(), DefaultLimits, "symbolic link"},
		{"duplicate", zipOf(t, "a.json", "1", "a.json", "2"), DefaultLimits, "duplicate"},
		{"duplicate after cleaning", zipOf(t, "a/b.json", "1", "a/./b.json", "2"), DefaultLimits, "duplicate"},
		{"too many entries", zipOf(t, "a", "", "b", "", "c", "", "d", ""), small, "more than the limit of 3"},
		{"entry too large", zipOf(t, "a", big), small, "too large"},
		{"total too large", zipOf(t, "a", big[:1000], "b", big[:1000], "c", big[:1000]), small, "too large"},
		{"bad manifest", zipOf(t, "manifest.json", `{"format":"other","version":1}`), DefaultLimits, "manifest.json"},
		{"future manifest", zipOf(t, "manifest.json", `{"format":"diag-bundle","version":9}`), DefaultLimits, "version 9"},
		{"not a zip", []byte("PS C:\\> Get-HnsNetwork\n"), DefaultLimits, "not a valid zip"},
		{"empty file", nil, DefaultLimits, "not a valid zip"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := openBytes(c.zip, c.lim)
			if err == nil {
				t.Fatal("accepted")
			}
			var be *Error
			if !errors.As(err, &be) {
				t.Errorf("error %T is not a *bundle.Error", err)
			}
			if !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "bad.zip") {
				t.Errorf("error %q does not name the file and %q", err, c.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error spans lines: %q", err)
			}
		})
	}
}

func TestTruncatedAndCorruptZip(t *testing.T) {
	good := zipOf(t, "hns/v1/networks.json", strings.Repeat(`{"Name":"Calico"},`, 200))
	if _, err := openBytes(good[:len(good)/2], DefaultLimits); err == nil || !strings.Contains(err.Error(), "truncated or corrupt") {
		t.Errorf("truncated zip: %v", err)
	}
	// Flip a byte in the compressed data: the CRC check must catch it.
	bad := bytes.Clone(good)
	bad[60] ^= 0xff
	b, err := openBytes(bad, DefaultLimits)
	if err != nil {
		return // detected at open: fine too
	}
	if _, err := b.ReadFile("hns/v1/networks.json"); err == nil {
		t.Error("corrupt entry read without error")
	}
}

// bomb builds a zip whose one entry claims to be `claimed` bytes but
// decompresses to `actual` zero bytes.
func bomb(t testing.TB, claimed, actual int64) []byte {
	var comp bytes.Buffer
	fw, _ := flate.NewWriter(&comp, flate.BestCompression)
	zero := make([]byte, 1<<20)
	crc := crc32.NewIEEE()
	for n := int64(0); n < actual; n += int64(len(zero)) {
		fw.Write(zero)
		crc.Write(zero)
	}
	fw.Close()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	h := &zip.FileHeader{Name: "hns/v1/networks.json", Method: zip.Deflate,
		CompressedSize64: uint64(comp.Len()), UncompressedSize64: uint64(claimed), CRC32: crc.Sum32()}
	w, err := zw.CreateRaw(h)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(comp.Bytes())
	zw.Close()
	return buf.Bytes()
}

func TestZipBombRefusedInBoundedMemory(t *testing.T) {
	const actual = 64 << 20
	lim := Limits{MaxEntries: 10, MaxEntrySize: 4 << 20, MaxTotalSize: 8 << 20}

	honest := bomb(t, actual, actual)
	if _, err := openBytes(honest, lim); err == nil || !errors.Is(err, ErrTooLarge) {
		t.Errorf("honest bomb: %v", err)
	}

	lying := bomb(t, 1000, actual)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b, err := openBytes(lying, lim)
	if err != nil {
		t.Fatal(err)
	}
	_, err = b.ReadFile("hns/v1/networks.json")
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "zip bomb") {
		t.Fatalf("lying bomb: %v", err)
	}
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 16<<20 {
		t.Errorf("reading the bomb allocated %d MiB", grown>>20)
	}
}

func TestDirectoryBundle(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "hns", "v1"), 0o700)
	os.WriteFile(filepath.Join(dir, "hns", "v1", "networks.json"), []byte("[]"), 0o600)
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"format":"diag-bundle","version":1,"node":"w"}`), 0o600)
	b, err := Open(dir, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close() // Windows deletes no file or folder still open
	if !b.IsDir() || !b.Has("hns/v1/networks.json") || b.Manifest.Node != "w" {
		t.Errorf("dir bundle: %v %+v", b.Names(), b.Manifest)
	}
	if runtime.GOOS == "windows" {
		return
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "hns", "link")); err != nil {
		t.Skip(err)
	}
	if _, err := Open(dir, DefaultLimits); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("symlink in directory: %v", err)
	}
}

func TestWrapperFolderIsStripped(t *testing.T) {
	b, err := openBytes(zipOf(t, "seed-broken/manifest.json", `{"format":"diag-bundle","version":1,"node":"w"}`,
		"seed-broken/hns/v1/networks.json", "[]"), DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if !b.Has("hns/v1/networks.json") || b.Manifest == nil || b.Manifest.Node != "w" {
		t.Errorf("wrapper folder kept: %v", b.Names())
	}
	// A bundle holding only hns/ must not lose its layout folder.
	b, _ = openBytes(zipOf(t, "hns/v1/networks.json", "[]", "hns/v1/endpoints.json", "[]"), DefaultLimits)
	if !b.Has("hns/v1/networks.json") {
		t.Errorf("layout folder stripped: %v", b.Names())
	}
}

func TestOpenMissingPath(t *testing.T) {
	_, err := Open(filepath.Join(t.TempDir(), "nope.zip"), DefaultLimits)
	// The system's own words: "no such file" on Unix, "cannot find" or
	// "not found" on Windows.
	if err == nil || !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "nope.zip: ") {
		t.Errorf("missing path: %v", err)
	}
}

func TestManifestTimesRoundTrip(t *testing.T) {
	now := time.Date(2026, 11, 22, 5, 0, 0, 0, time.UTC)
	out := filepath.Join(t.TempDir(), "b.zip")
	w, _ := Create(out, manifest.Manifest{Node: "n", Started: &now, Finished: &now})
	w.Close()
	b, err := Open(out, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close() // Windows deletes no file or folder still open
	if !b.Manifest.Started.Equal(now) {
		t.Errorf("started = %v", b.Manifest.Started)
	}
}

// openTest opens the bundle at path with the default limits, closed when
// the test ends; an error fails the test.
func openTest(t *testing.T, path string) *Bundle {
	t.Helper()
	b, err := Open(path, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}
