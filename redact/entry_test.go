package redact

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/wincni/diag/bundle"
)

func TestRedactText(t *testing.T) {
	clean, marks, err := File(encodings["utf-16le bom"]("password=hunter2\r\n"))
	if err != nil || string(clean) != "password=REDACTED\r\n" || len(marks) != 1 || marks[0].Kind != "password" || marks[0].Count != 1 {
		t.Errorf("UTF-16: %q %v %v", clean, marks, err)
	}
	if _, _, err := File([]byte("\x00\x01binary")); !errors.Is(err, ErrBinary) {
		t.Errorf("binary: %v", err)
	}
}

// A text entry larger than bundle redact reads at once is left out, never
// carried unredacted.
func TestRedactEntryTooLargeIsLeftOut(t *testing.T) {
	e := &bundle.RewriteEntry{Name: "logs/kube-proxy.log", Size: MaxEntry + 1, Head: []byte("I1124 password=hunter2\n")}
	out, err := Entry(e)
	if err != nil || out.Action != bundle.Omit || !strings.Contains(out.Reason, "not redacted") {
		t.Errorf("%+v %v", out, err)
	}
}

// A text file whose one line is over MaxLine is cut into pieces;
// a key and its value on either side of the cut go all the same, in the
// file bundle redact reads whole (no final newline), in UTF-16 too.
func TestRedactTextHugeLineCut(t *testing.T) {
	for _, pair := range []struct{ key, value string }{
		{`{"password": `, `"S3CR3Tqz4k9"}, `},
		{`Authorization: Bearer `, `S3CR3Tqz4k9AbCdEf, `},
		{`["--token", `, `"S3CR3Tqz4k9"], `},
		{`["token", `, `"S3CR3Tqz4k9"], `},
	} {
		var b strings.Builder
		for b.Len() < MaxLine-len(pair.key)-64 {
			b.WriteString(`{"Name":"ep","IPAddress":"100.244.1.2"}, `)
		}
		b.WriteString(strings.Repeat("x", MaxLine-len(pair.key)-b.Len()-1))
		b.WriteString(" " + pair.key + pair.value) // the key ends at the 1 MiB mark
		for b.Len() < MaxLine+64<<10 {
			b.WriteString(`{"Name":"ep","IPAddress":"100.244.1.2"}, `)
		}
		for _, enc := range []string{"utf-8", "utf-16le"} {
			data := []byte(b.String())
			if enc == "utf-16le" {
				data = encodings["utf-16le bom"](b.String())
			}
			clean, marks, err := File(data)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(clean, []byte("S3CR3T")) || len(marks) == 0 {
				t.Errorf("%s, %s: the value after the cut passed unredacted (marks %v)", pair.key, enc, marks)
			}
			if !bytes.Contains(clean, []byte(pair.key)) {
				t.Errorf("%s, %s: the key is gone", pair.key, enc)
			}
		}
	}
}
