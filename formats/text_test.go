package formats

import (
	"bytes"
	"testing"
	"unicode/utf16"
)

func TestDecodeText(t *testing.T) {
	s := "Name : Microsoft Windows 筛选平台 😀 é\r\n"
	le := utf16LE(s)
	be := []byte{0xFE, 0xFF}
	for _, u := range utf16.Encode([]rune(s)) {
		be = append(be, byte(u>>8), byte(u))
	}
	for name, in := range map[string][]byte{
		"utf-16le bom":    le,
		"utf-16be bom":    be,
		"utf-16le no bom": le[2:],
		"utf-8 bom":       append([]byte{0xEF, 0xBB, 0xBF}, s...),
		"utf-8":           []byte(s),
	} {
		got, err := DecodeText(in)
		if err != nil || string(got) != s {
			t.Errorf("%s: %q, %v", name, got, err)
		}
	}
	if _, err := DecodeText(le[:len(le)-1]); err == nil {
		t.Error("odd-length UTF-16 accepted")
	}
	// A lone surrogate becomes U+FFFD, not a crash.
	got, _ := DecodeText([]byte{0xFF, 0xFE, 0x00, 0xD8, 'A', 0})
	if !bytes.Equal(got, []byte("\uFFFDA")) {
		t.Errorf("lone surrogate: %q", got)
	}
}
