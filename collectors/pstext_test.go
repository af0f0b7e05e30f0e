package collectors

import (
	"context"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/wincni/diag/hostexec"
)

// psUTF16LE is s as PowerShell writes it to a console in Unicode, with the
// byte order mark FF FE when bom.
func psUTF16LE(s string, bom bool) []byte {
	var b []byte
	if bom {
		b = append(b, 0xFF, 0xFE)
	}
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return b
}

const psJSON = `[{"Name":"vEthernet (Ethernet)","ifIndex":7}]`

// psCases are the shapes PowerShell's output has been seen in.
var psCases = map[string][]byte{
	"plain":                   []byte(psJSON),
	"one BOM":                 []byte("\xef\xbb\xbf" + psJSON),
	"two BOMs":                []byte("\xef\xbb\xbf\xef\xbb\xbf" + psJSON),
	"CRLF before the BOM":     []byte("\r\n\xef\xbb\xbf" + psJSON),
	"blanks around the BOM":   []byte(" \r\n \xef\xbb\xbf\r\n" + psJSON + "\r\n"),
	"UTF-16LE with FF FE":     psUTF16LE(psJSON+"\r\n", true),
	"UTF-16LE without FF FE":  psUTF16LE(psJSON+"\r\n", false),
	"UTF-16LE with two BOMs":  psUTF16LE("\ufeff"+psJSON, true),
	"UTF-16LE, CRLF then BOM": psUTF16LE("\r\n\ufeff"+psJSON, false),
}

func TestPSTextParses(t *testing.T) {
	for name, in := range psCases {
		got := psText(in)
		if strings.TrimSpace(string(got)) != psJSON || !isJSON(got) {
			t.Errorf("%s: %q", name, got)
		}
	}
}

// A command line per line (kube-proxy's), a BOM before each: none is left.
func TestPSTextLines(t *testing.T) {
	in := "\xef\xbb\xbfkube-proxy.exe --v=4\r\n\xef\xbb\xbfkube-proxy.exe --v=2\r\n"
	if got := string(psText([]byte(in))); got != "kube-proxy.exe --v=4\r\nkube-proxy.exe --v=2\r\n" {
		t.Errorf("%q", got)
	}
}

// psRunner answers every command with out and err.
type psRunner struct {
	out []byte
	err error
}

func (r psRunner) Run(context.Context, string, ...string) ([]byte, error) { return r.out, r.err }

// Output that is not JSON is named in one readable line: no NUL, byte
// order mark or control code reaches the console or the manifest.
func TestPSNotJSONLineIsClean(t *testing.T) {
	for name, out := range map[string][]byte{
		"UTF-16LE with FF FE":    psUTF16LE("Get-NetAdapter : Access is denied.\r\nAt line:1", true),
		"UTF-16LE without FF FE": psUTF16LE("Get-NetAdapter : Access is denied.\r\nAt line:1", false),
		"UTF-8, two BOMs, NULs":  []byte("\xef\xbb\xbf\xef\xbb\xbfGet-NetAdapter :\x00 Access is denied.\x07\r\n"),
	} {
		err := psCollector("net/adapters.json", psAdapters)(context.Background(), &Env{Runner: psRunner{out: out}}, nil)
		if err == nil {
			t.Fatalf("%s: no error", name)
		}
		msg := err.Error()
		if !strings.Contains(msg, "Get-NetAdapter :") || !strings.Contains(msg, "Access is denied.") || strings.ContainsAny(msg, "\x00\ufeff\x07\r\n") {
			t.Errorf("%s: %q", name, msg)
		}
	}
}

func FuzzPSText(f *testing.F) {
	for _, in := range psCases {
		f.Add(in)
	}
	f.Add([]byte("\xef\xbb\xbf\r\n\xef\xbb\xbf"))
	f.Fuzz(func(t *testing.T, in []byte) {
		got := psText(in)
		if strings.HasPrefix(string(got), "\ufeff") || strings.TrimLeft(string(got), " \t\r\n") != string(got) {
			t.Errorf("psText(%q) = %q: starts with a BOM or blank", in, got)
		}
		if l := hostexec.FirstLine(string(got)); strings.ContainsAny(l, "\x00\ufeff\r\n") {
			t.Errorf("firstLine: %q", l)
		}
	})
}
