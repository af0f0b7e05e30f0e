package redact

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// encodings are the ways Windows and Linux write the same text that diag
// reads: UTF-8 with and without a byte order mark, UTF-16LE with and
// without one (PowerShell's redirections, cmd /u /c set > env.txt),
// UTF-16BE with one; each with LF and with CRLF line ends.
var encodings = func() map[string]func(string) []byte {
	forms := map[string]func(string) []byte{
		"utf-8":        func(s string) []byte { return []byte(s) },
		"utf-8 bom":    func(s string) []byte { return append([]byte("\ufeff"), s...) },
		"utf-16le":     utf16LE,
		"utf-16le bom": func(s string) []byte { return append([]byte{0xFF, 0xFE}, utf16LE(s)...) },
		"utf-16be bom": func(s string) []byte { return append([]byte{0xFE, 0xFF}, utf16BE(s)...) },
	}
	all := map[string]func(string) []byte{}
	for name, enc := range forms {
		all[name] = enc
		all[name+" crlf"] = func(s string) []byte { return enc(strings.ReplaceAll(s, "\n", "\r\n")) }
	}
	return all
}()

func utf16LE(s string) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return b
}

func utf16BE(s string) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u>>8), byte(u))
	}
	return b
}

// TestCorpusEveryEncoding: every planted secret goes and every look-alike
// stays in every encoding, once decoded as collect and bundle redact do.
func TestCorpusEveryEncoding(t *testing.T) {
	secrets := readCorpus(t, "testdata/secrets.txt")
	looks := readCorpus(t, "testdata/lookalikes.txt")
	for name, enc := range encodings {
		for _, c := range secrets {
			data := Decode(enc(c.in))
			if IsBinary(data) {
				t.Fatalf("%s: %s: taken for binary", name, c.name)
			}
			if out, _ := Text(data); bytes.Contains(out, []byte(marker)) {
				t.Errorf("%s: %s: secret left:\n%s", name, c.name, out)
			}
		}
		for _, c := range looks {
			data := Decode(enc(c.in))
			if out, counts := Text(data); len(counts) != 0 {
				t.Errorf("%s: %s: changed (%v):\n%s", name, c.name, counts, diffLines(string(data), string(out)))
			}
		}
	}
}

// TestDecode: UTF-16 with and without a byte order mark becomes UTF-8;
// UTF-8, binary data and NUL-padded text stay as they are.
func TestDecode(t *testing.T) {
	set := "ALLUSERSPROFILE=C:\\ProgramData\nCOMPUTERNAME=WINW1\nREGISTRY_PASSWORD=x\n"
	for name, enc := range encodings {
		got := string(Decode(enc(set)))
		if strings.TrimPrefix(strings.ReplaceAll(got, "\r\n", "\n"), "\ufeff") != strings.ReplaceAll(set, "\r\n", "\n") {
			t.Errorf("%s: %q", name, got)
		}
		if !LooksUTF16(enc(set)) != !strings.HasPrefix(name, "utf-16") {
			t.Errorf("%s: LooksUTF16 = %v", name, LooksUTF16(enc(set)))
		}
	}
	for _, keep := range [][]byte{
		[]byte("plain\n"), {0x4d, 0x5a, 0x90, 0x00, 0x03, 0x00, 0x00, 0x00, 0x04, 0x00}, append([]byte("log\n"), make([]byte, 64)...), {'a', 0},
	} {
		if got := Decode(keep); !bytes.Equal(got, keep) {
			t.Errorf("%q decoded to %q", keep, got)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte{0xFF, 0xFE, 'a', 0, '\n', 0})
	f.Add(utf16LE("COMPUTERNAME=X\r\n"))
	f.Add([]byte{0x00, 'a', 0x00, 'b', 0xD8, 0x00})
	// Decode changes only what LooksUTF16 takes for UTF-16, gives valid
	// UTF-8 for it, and what it gives redacts without a panic.
	f.Fuzz(func(t *testing.T, in []byte) {
		out := Decode(in)
		if !LooksUTF16(in) && !bytes.Equal(out, in) {
			t.Fatalf("%q: decoded without looking like UTF-16", in)
		}
		if LooksUTF16(in) && !utf8.Valid(out) {
			t.Fatalf("%q: decoded to invalid UTF-8", in)
		}
		Text(out)
	})
}
