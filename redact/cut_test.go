package redact

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// A line too long to be handled whole is cut into pieces. Wherever the cut
// falls, a key and its value on either side of it must not let the value
// through: the pairs below are placed so that the cut lands on every byte
// of them in turn.
var straddling = []struct{ key, value, after string }{
	{`{"password": `, `"S3CR3Tqz4k9"`, `}, `},
	{`{"token":`, `"S3CR3Tqz4k9 two words"`, `}, `},
	{`Authorization: Bearer `, `S3CR3Tqz4k9AbCdEf`, `, `},
	{`Authorization: `, `Basic UzNDUjNUcXo0azk6eA==`, ` `},
	{`["token", `, `"S3CR3Tqz4k9"`, `], `},
	{`"args": ["--password", `, `"S3CR3Tqz4k9"`, `], `},
	{`--token `, `S3CR3Tqz4k9`, ` `},
	{`mysql -u root -p`, `S3CR3Tqz4k9`, ` db; `},
	{`password = `, `S3CR3Tqz4k9`, `; `},
	{`Set-ItemProperty -Path $wl -Name DefaultPassword -Value `, `S3CR3Tqz4k9`, `; `},
	{`Server=db;User ID=sa;Password=`, `S3CR3T qz4k9`, `;Encrypt=true; `},
	{`https://admin:`, `S3CR3Tqz4k9@example.com/x`, ` `},
}

// Look-alikes near a cut stay as they are.
var straddlingKeep = []string{
	`{"passwordless": true}, `, `{"tokenizer": "words"}, `, `ssh -p 22 user@host; `,
	`"publicKeyToken": "31bf3856ad364e35", `, `docker run -p 80:80 nginx; `,
}

// hugeLine returns filler, then pair, then filler, with the byte at index
// at of pair falling at offset cut of the line.
func hugeLine(pair string, at, cut, size int) string {
	const unit = `{"Name":"ep","IPAddress":"100.244.1.2"}, `
	var b strings.Builder
	for b.Len()+len(unit) < cut-at {
		b.WriteString(unit)
	}
	b.WriteString(strings.Repeat("x", cut-at-b.Len()))
	b.WriteString(" ")
	b.WriteString(pair)
	for b.Len() < size {
		b.WriteString(unit)
	}
	return b.String()
}

func withMaxLine(t *testing.T, n int) {
	old := maxLine
	maxLine = n
	t.Cleanup(func() { maxLine = old })
}

// redactAll redacts in by Text (one write: the cut applies to a last line
// without a newline) and by a Writer fed in 4 KiB writes (as a stream:
// every long line is cut, newline or not).
func redactAll(in string) map[string][]byte {
	out := map[string][]byte{}
	o, _ := Text([]byte(in))
	out["Text, no final newline"] = o
	var b bytes.Buffer
	w := NewWriter(&b)
	for p := []byte(in + "\n"); len(p) > 0; {
		n := min(4096, len(p))
		w.Write(p[:n])
		p = p[n:]
	}
	w.Close()
	out["Writer, 4 KiB writes"] = b.Bytes()
	return out
}

func TestCutNeverSplitsKeyFromValue(t *testing.T) {
	withMaxLine(t, 8<<10)
	for _, c := range straddling {
		pair := c.key + c.value + c.after
		for at := 0; at <= len(pair); at++ {
			in := hugeLine(pair, at, maxLine-1, maxLine+3*cutContext())
			for how, out := range redactAll(in) {
				if bytes.Contains(out, []byte(marker)) {
					t.Errorf("%s: %q cut at byte %d: the value passed unredacted", how, pair, at)
					break
				}
			}
		}
	}
	for _, keep := range straddlingKeep {
		for at := 0; at <= len(keep); at++ {
			in := hugeLine(keep, at, maxLine-1, maxLine+3*cutContext())
			for how, out := range redactAll(in) {
				if !bytes.Contains(out, []byte(keep)) || bytes.Contains(out, []byte(Placeholder)) {
					t.Errorf("%s: look-alike %q cut at byte %d was changed", how, keep, at)
					break
				}
			}
		}
	}
}

// The same at the real size (MaxLine), for the first five shapes.
func TestCutAtMaxLine(t *testing.T) {
	for _, c := range straddling[:5] {
		pair := c.key + c.value + c.after
		in := hugeLine(pair, len(c.key)-1, MaxLine-1, MaxLine+200<<10)
		for how, out := range redactAll(in) {
			if bytes.Contains(out, []byte(marker)) {
				t.Errorf("%s: %q across the 1 MiB cut: the value passed unredacted", how, pair)
			}
			if want := len(strings.Split(in, "S3CR3T")) - 1; bytes.Count(out, []byte(Placeholder)) < want {
				t.Errorf("%s: %d placeholders, want %d", how, bytes.Count(out, []byte(Placeholder)), want)
			}
		}
	}
	_ = fmt.Sprint()
}
