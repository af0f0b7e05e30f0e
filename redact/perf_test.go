package redact

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
)

// logLines is a mix of what a node's logs hold: kubelet and kube-proxy
// lines, HNS JSON, a few secrets.
func logLines(n int) []byte {
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		switch i % 10 {
		case 0:
			fmt.Fprintf(&b, "I0101 12:00:%02d.%06d    4242 proxier.go:1234] \"Syncing service\" service=\"kube-system/kube-dns:dns\" endpoint=\"100.244.1.%d:53\"\n", i%60, i, i%250)
		case 1:
			fmt.Fprintf(&b, "    \"ID\": \"5C8D3FA2-7B4E-4A9C-8D2F-%012X\", \"Type\": \"OutBoundNAT\", \"Settings\": {\"VirtualIP\": \"10.0.%d.1\"},\n", i, i%250)
		case 2:
			fmt.Fprintf(&b, "E0101 12:00:00.000 kubelet.go:2855] \"Error syncing pod, skipping\" err=\"failed to get token for service account default\" pod=\"default/web-%d\"\n", i)
		case 3:
			fmt.Fprintf(&b, "time=\"2024-01-01T00:00:00Z\" level=info msg=\"using key %d for the keyboard tokenizer\" password=abc%d\n", i, i)
		default:
			fmt.Fprintf(&b, "2024-01-01 12:00:00 [INFO] vfp port %d rule added: LB 10.96.0.10:53 -> 100.244.%d.%d:53 (udp)\n", i, i%250, i%200)
		}
	}
	return b.Bytes()
}

// BenchmarkLargeLog: a 100 MB log redacts in seconds and at the same speed
// per byte as a small one (no quadratic behaviour). Speed is measured by
// benchmarks (make bench), never asserted by a timed test.
func BenchmarkLargeLog(b *testing.B) {
	for _, n := range []int{20000, 900000} {
		data := logLines(n)
		b.Run(fmt.Sprintf("%dMB", len(data)>>20), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := Copy(io.Discard, bytes.NewReader(data)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// One huge line (a one-line JSON document) is handled in pieces, and
// quickly; its secrets still go.
func TestHugeLine(t *testing.T) {
	var b strings.Builder
	b.WriteString(`[`)
	for b.Len() < 3*MaxLine {
		b.WriteString(`{"Name":"ep","IPAddress":"100.244.1.2","token":"S3CR3Tabc"},`)
	}
	b.WriteString(`{}]`)
	out, counts := Text([]byte(b.String()))
	if bytes.Contains(out, []byte(marker)) {
		t.Error("secret left in a huge line")
	}
	if countOf(counts, KindToken) == 0 || len(out) == 0 {
		t.Errorf("counts %v", counts)
	}
}

// Hostile shapes must stay linear: many triggers on one line, a long run
// of base64 lines, a BEGIN with no end.
func BenchmarkHostileShapes(b *testing.B) {
	for name, in := range map[string]string{
		"keys":    strings.Repeat("password=a token: b key=c ", 200000),
		"spaced":  strings.Repeat("password = a ", 300000),
		"base64":  strings.Repeat("QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=\n", 300000),
		"begin":   "-----BEGIN PRIVATE KEY-----\n" + strings.Repeat("QUJD\n", 1000000),
		"block":   "password: |\n" + strings.Repeat("  x\n", 1000000),
		"cookies": "Cookie: " + strings.Repeat("a=b; ", 200000),
		"slashes": strings.Repeat("/p:x /u:y ", 200000),
		"pem":     strings.Repeat("-----BEGIN PRIVATE KEY----- ", 100000),
	} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				Text([]byte(in))
			}
		})
	}
}

// Text and a Writer fed in small pieces agree.
func TestStreamingMatchesText(t *testing.T) {
	for _, path := range []string{"testdata/secrets.txt", "testdata/lookalikes.txt"} {
		data := []byte(strings.ReplaceAll(readFile(t, path), "\n", "\r\n"))
		want, wantCounts := Text(data)
		for _, size := range []int{1, 7, 64, 4096} {
			var out bytes.Buffer
			w := NewWriter(&out)
			for p := data; len(p) > 0; {
				n := min(size, len(p))
				w.Write(p[:n])
				p = p[n:]
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out.Bytes(), want) {
				t.Errorf("%s in %d-byte writes differs from Text", path, size)
			}
			if fmt.Sprint(w.Counts()) != fmt.Sprint(wantCounts) {
				t.Errorf("%s in %d-byte writes: counts %v, Text %v", path, size, w.Counts(), wantCounts)
			}
		}
		if bytes.Contains(want, []byte(marker)) {
			t.Errorf("%s with CRLF line ends: secret left in", path)
		}
	}
}

func BenchmarkText(b *testing.B) {
	data := logLines(100000)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		Text(data)
	}
}
