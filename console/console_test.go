package console

import (
	"bytes"
	"runtime"
	"testing"
)

// Code page 0 is no change: UTF-8 passes as it is.
func TestWriterUTF8(t *testing.T) {
	var b bytes.Buffer
	w := Writer(&b, 0)
	w.Write([]byte("OVL-01 · a → b — c…"))
	if b.String() != "OVL-01 · a → b — c…" {
		t.Errorf("%q", b.String())
	}
}

// Through PowerShell 5.1 on a console in code page 437 or 850 (the OEM
// code pages of English and Western European Windows): what the code page
// has is written in it, diag's arrows and dashes as ASCII, anything else
// as '?'; a character cut between two writes is whole.
func TestWriterCodePage(t *testing.T) {
	if runtime.GOOS != "windows" {
		t.Skip("code pages are Windows'")
	}
	for _, c := range []struct {
		cp   uint32
		want string
	}{
		{437, "OVL-01 \xfa Ethernet 2 -> vEthernet (H\x84ndler) - 10.0.2.15... ? \xf2 1\n"}, // 437 has ≥
		{850, "OVL-01 \xfa Ethernet 2 -> vEthernet (H\x84ndler) - 10.0.2.15... ? >= 1\n"},
	} {
		var b bytes.Buffer
		w := Writer(&b, c.cp)
		text := []byte("OVL-01 · Ethernet 2 → vEthernet (Händler) — 10.0.2.15… 虚 ≥ 1\n")
		// Cut inside "→" (three bytes) and inside "ä".
		cut1, cut2 := bytes.Index(text, []byte("→"))+1, bytes.Index(text, []byte("ä"))+1
		for _, part := range [][]byte{text[:cut1], text[cut1:cut2], text[cut2:]} {
			if n, err := w.Write(part); err != nil || n != len(part) {
				t.Fatalf("write: %d %v", n, err)
			}
		}
		if b.String() != c.want {
			t.Errorf("code page %d: %q, want %q", c.cp, b.String(), c.want)
		}
	}
}
