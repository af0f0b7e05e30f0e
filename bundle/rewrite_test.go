package bundle

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wincni/diag/manifest"
)

func rewriteInput(t *testing.T) *Bundle {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "in")
	for name, data := range map[string]string{
		"manifest.json":    `{"format": "diag-bundle", "version": 1, "node": "n1", "files": [{"path": "logs/a.log", "truncated": true}]}`,
		"logs/a.log":       "secret here\n",
		"capture/x.pcapng": strings.Repeat("\x0a\x0d\x0d\x0a", RewriteHead),
		"logs/skip.bin":    "\x00\x01",
		"host/os.json":     `{"CsName": "n1"}`,
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := Open(dir, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func testFilter(e *RewriteEntry) (Outcome, error) {
	switch {
	case strings.HasPrefix(e.Name, "capture/"):
		return Outcome{Action: Copy}, nil
	case strings.HasSuffix(e.Name, ".bin"):
		return Outcome{Action: Omit, Reason: "binary"}, nil
	}
	data, err := e.ReadAll()
	if err != nil {
		return Outcome{}, err
	}
	if bytes.Contains(data, []byte("secret")) {
		return Outcome{Action: Replace, Data: bytes.ReplaceAll(data, []byte("secret"), []byte("REDACTED")), Redacted: []manifest.Redaction{{Kind: "secret", Count: 1}}}, nil
	}
	return Outcome{Action: Replace, Data: data}, nil
}

func TestRewrite(t *testing.T) {
	b := rewriteInput(t)
	out := filepath.Join(t.TempDir(), "out.zip")
	w, err := Create(out, manifest.Manifest{Node: "n1"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Rewrite(context.Background(), b, w, testFilter)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 3 || len(res.Omitted) != 1 || res.Omitted[0].Path != "logs/skip.bin" || len(res.Redacted) != 1 {
		t.Errorf("result %+v", res)
	}
	ob, err := Open(out, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer ob.Close()
	if problems, err := Verify(ob); err != nil || len(problems) != 0 {
		t.Errorf("verify: %v %v", problems, err)
	}
	fe, _ := ob.Manifest.File("logs/a.log")
	if !fe.Truncated || len(fe.Redacted) != 1 || fe.Redacted[0].Kind != "secret" {
		t.Errorf("logs/a.log in the manifest: %+v", fe)
	}
	if got, _ := ob.ReadFile("capture/x.pcapng"); len(got) != 4*RewriteHead {
		t.Errorf("capture copied as %d bytes", len(got))
	}
	if got, _ := ob.ReadFile("logs/a.log"); string(got) != "REDACTED here\n" {
		t.Errorf("logs/a.log = %q", got)
	}
}

func TestRewriteInterrupted(t *testing.T) {
	b := rewriteInput(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "out.zip")
	w, err := Create(out, manifest.Manifest{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Rewrite(ctx, b, w, testFilter); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	w.Abort()
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left behind: %v", ents)
	}
	if _, err := os.Stat(w.staging); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("staging directory left behind: %v", err)
	}
}

func TestWriterNoReplace(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.zip")
	os.WriteFile(out, []byte("mine"), 0o644)
	w, err := Create(out, manifest.Manifest{})
	if err != nil {
		t.Fatal(err)
	}
	w.NoReplace()
	w.WriteFile("a.txt", []byte("a"))
	if _, err := w.Close(); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Close over an existing file: %v, want fs.ErrExist", err)
	}
	if data, _ := os.ReadFile(out); string(data) != "mine" {
		t.Errorf("existing file replaced: %q", data)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left behind: %v", ents)
	}

	os.Remove(out)
	w, _ = Create(out, manifest.Manifest{})
	w.NoReplace()
	w.WriteFile("a.txt", []byte("a"))
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b := openTest(t, out)
	if problems, err := Verify(b); err != nil || len(problems) != 0 {
		t.Errorf("verify: %v %v", problems, err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("want the zip and its sidecar, got %v", ents)
	}
}
