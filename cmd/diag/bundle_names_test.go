package main

import (
	"archive/zip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A bundle whose entries differ only in case, or are named like Windows
// devices: redact and anonymize keep each entry's own content and write a
// bundle that verifies, on every platform.
func TestRewriteFoldedAndDeviceNames(t *testing.T) {
	names := []string{"logs/kubelet/Kubelet.log", "logs/kubelet/kubelet.log", "logs/cni/nul.txt", "logs/cni/con.log", "logs/com1.txt", "logs/aux.json"}
	dir := t.TempDir()
	in := filepath.Join(dir, "in.zip")
	f, err := os.Create(in)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	add := func(name, text string) {
		w, err := zw.Create(name)
		if err == nil {
			_, err = w.Write([]byte(text))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	add("manifest.json", `{"format":"diag-bundle","version":1,"node":"win-1"}`)
	content := func(i int) string { return fmt.Sprintf("I1122 05:00:0%d started entry %d\n", i, i) }
	for i, n := range names {
		add(n, content(i))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for _, cmd := range [][]string{{"bundle", "redact"}, {"bundle", "anonymize", "--key-file", anonymizeKey(t, dir)}} {
		out := filepath.Join(dir, strings.Join(cmd[:2], "-")+".zip")
		r := runDiag(t, nil, false, append(cmd, in, "--output-file", out)...)
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", cmd[1], r.code, r.stderr)
		}
		if v := runDiag(t, nil, false, "bundle", "verify", out); v.code != 0 {
			t.Errorf("%s: verify: exit %d: %s %s", cmd[1], v.code, v.stdout, v.stderr)
		}
		got := readZip(t, out)
		for i, n := range names {
			if string(got[n]) != content(i) {
				t.Errorf("%s: %s holds %q, want %q", cmd[1], n, got[n], content(i))
			}
		}
	}
}
