package main

import (
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/wincni/diag/redact"
)

// TestAnonymizeStatedNamesInEveryEncoding: files that state the node, its
// domain and a user in the shapes diag reads (a transcript's header,
// Get-ComputerInfo, the kubelet's flags, configuration and log, a
// Node's addresses as kubectl describe prints them), each written in
// UTF-8, UTF-8 with BOM and CRLF, UTF-16LE with and without BOM and
// UTF-16BE: no name is left in the copy, in any encoding, unless the
// summary names it as kept.
func TestAnonymizeStatedNamesInEveryEncoding(t *testing.T) {
	text := strings.Join([]string{
		"**********************",
		"Windows PowerShell transcript start",
		"Username: NORTHWINDCORP\\asmith-ops",
		"RunAs User: NORTHWINDCORP\\asmith-ops",
		"Machine: WINPOOL000042 (Microsoft Windows NT 10.0.20348.0)",
		"**********************",
		"CsCaption     : WINPOOL000042",
		"CsDomain      : ops.northwind-test.org",
		"C:\\k\\kubelet.exe --hostname-override=winpool000042 --node-ip=10.1.0.7",
		`I1126 10:01:02.123456    4120 kubelet_node_status.go:72] "Attempting to register node" node="winpool000042"`,
		`  "nodeName": "winpool000042",`,
		"  InternalDNS:  winpool000042.pool.northwind-test.org",
		"",
	}, "\n")
	in := copyTree(t, "../../testdata/collectlogs/flannel-2024")
	for turn := range 6 {
		writeFile(t, filepath.Join(in, "stated-"+string(rune('a'+turn))+".txt"), encodeAs(text, turn))
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "a.zip")
	r := runDiag(t, nil, false, "bundle", "anonymize", in, "--output-file", out, "--key-file", anonymizeKey(t, dir))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	n := 0
	for name, data := range readZip(t, out) {
		if !strings.HasPrefix(name, "stated-") {
			continue
		}
		n++
		got := strings.ToLower(string(redact.Decode(data)))
		for _, s := range []string{"northwind", "asmith", "winpool"} {
			if strings.Contains(got, s) && !strings.Contains(strings.ToLower(r.stderr), s) {
				t.Errorf("%s: %s left, not named as kept:\n%s", name, s, got)
			}
		}
	}
	if n != 6 {
		t.Errorf("%d of the 6 files in the copy", n)
	}
}

// encodeAs writes text as one of diag's inputs may hold it, by turn:
// UTF-8, CRLF, UTF-8 with BOM, UTF-16LE with and without BOM, UTF-16BE
// with BOM.
func encodeAs(text string, turn int) []byte {
	crlf := strings.ReplaceAll(text, "\n", "\r\n")
	u16 := func(be bool) []byte {
		var b []byte
		for _, u := range utf16.Encode([]rune(crlf)) {
			if be {
				b = append(b, byte(u>>8), byte(u))
			} else {
				b = append(b, byte(u), byte(u>>8))
			}
		}
		return b
	}
	switch turn % 6 {
	case 0:
		return []byte(text)
	case 1:
		return []byte(crlf)
	case 2:
		return append([]byte("\ufeff"), crlf...)
	case 3:
		return append([]byte{0xFF, 0xFE}, u16(false)...)
	case 4:
		return u16(false)
	default:
		return append([]byte{0xFE, 0xFF}, u16(true)...)
	}
}
