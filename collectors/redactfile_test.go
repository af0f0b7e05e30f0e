package collectors

import (
	"bytes"
	"compress/gzip"
	"errors"
	"strings"
	"testing"

	"github.com/wincni/diag/bundle"
)

func gz(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

func TestIsCapture(t *testing.T) {
	pcap := []byte{0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0}
	pcapng := []byte{0x0a, 0x0d, 0x0d, 0x0a, 0x1c, 0, 0, 0}
	for _, c := range []struct {
		name string
		head []byte
		want bool
	}{
		{"pcap", pcap, true},
		{"pcapng", pcapng, true},
		{"gzip'd pcap", gz(pcap), true},
		{"gzip'd pcapng", gz(pcapng), true},
		{"gzip'd text", gz([]byte("password=x\n")), false},
		{"zip", []byte("PK\x03\x04rest"), false},
		{"text", []byte("hello"), false},
		{"short", []byte{0xd4}, false},
	} {
		if got := IsCapture(c.head); got != c.want {
			t.Errorf("%s: IsCapture = %v", c.name, got)
		}
	}
}

func TestRedactText(t *testing.T) {
	utf16 := []byte{0xFF, 0xFE}
	for _, r := range "password=hunter2\r\n" {
		utf16 = append(utf16, byte(r), 0)
	}
	clean, marks, err := RedactText(utf16)
	if err != nil || string(clean) != "password=REDACTED\r\n" || len(marks) != 1 || marks[0].Kind != "password" || marks[0].Count != 1 {
		t.Errorf("UTF-16: %q %v %v", clean, marks, err)
	}
	if _, _, err := RedactText([]byte("\x00\x01binary")); !errors.Is(err, ErrBinary) {
		t.Errorf("binary: %v", err)
	}
}

// A text entry larger than bundle redact reads at once is left out, never
// carried unredacted.
func TestRedactEntryTooLargeIsLeftOut(t *testing.T) {
	e := &bundle.RewriteEntry{Name: "logs/kube-proxy.log", Size: MaxRedactEntry + 1, Head: []byte("I1124 password=hunter2\n")}
	out, err := RedactEntry(e)
	if err != nil || out.Action != bundle.Omit || !strings.Contains(out.Reason, "not redacted") {
		t.Errorf("%+v %v", out, err)
	}
}
