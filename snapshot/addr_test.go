package snapshot

import (
	"strings"
	"testing"
)

// NormalizeMAC's one-pass path for the usual forms gives what the general
// path gives for every input.
func FuzzNormalizeMAC(f *testing.F) {
	for _, s := range []string{"00-15-5D-64-51-0E", "66-a5-cc-c1-86-97", "c6:71:81:86:b2:77", " 00-15-5d-64-51-0e ", "0015.5d64.510e",
		"00155D64510E", "00-15-5D-64-51-0G", "00-15-5D:64-51-0e", "00_15_5D_64_51_0E", "00-15-5D-64-51-0Ex", "", "ÄB-15-5D-64-51-0E"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := NormalizeMAC(s), normalizeMACForms(strings.ToLower(strings.TrimSpace(s))); got != want {
			t.Errorf("NormalizeMAC(%q) = %q, the general path gives %q", s, got, want)
		}
	})
}
