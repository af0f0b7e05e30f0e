package snapshot

import (
	"net/netip"
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

// plainGUID agrees with a byte at a time, for every byte value at every
// place of a word and past it.
func TestPlainGUID(t *testing.T) {
	slow := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if c := s[i]; c <= ' ' || c >= 0x7f || c >= 'a' && c <= 'z' {
				return false
			}
		}
		return true
	}
	base := "4CA5C01B-C6D2-D383-C900-17AA0C0F60CF"
	if !plainGUID(base) || plainGUID(strings.ToLower(base)) {
		t.Fatal("the GUID itself")
	}
	for at := 0; at < len(base); at++ {
		for c := 0; c < 256; c++ {
			b := []byte(base)
			b[at] = byte(c)
			if got, want := plainGUID(string(b)), slow(string(b)); got != want || plainGUID(b) != want {
				t.Fatalf("%q: %v, want %v", b, got, want)
			}
			if IsNormalGUID(b) && NormalizeGUID(string(b)) != string(b) {
				t.Fatalf("%q: IsNormalGUID %v, NormalizeGUID %q", b, IsNormalGUID(b), NormalizeGUID(string(b)))
			}
		}
	}
}

// NormalMAC answers as NormalizeMAC does for the forms it takes, from a
// string or bytes alike, and takes no other.
func TestNormalMAC(t *testing.T) {
	for _, s := range []string{"00-15-5D-64-51-0E", "c6:71:81:86:b2:77", "00-15:5d-64:51-0e", "00-15-5D-64-51-0G",
		"00-15-5D-64-51-0", "00-15-5D-64-51-0E0", "00_15-5D-64-51-0E", "0015.5d64.510e", "00155D64510E", " 00-15-5D-64-51-0E", ""} {
		var a, b [17]byte
		okS, okB := NormalMAC(&a, s), NormalMAC(&b, []byte(s))
		if okS != okB || a != b {
			t.Errorf("%q: %v %q from the string, %v %q from its bytes", s, okS, a, okB, b)
		}
		if okS && string(a[:]) != NormalizeMAC(s) {
			t.Errorf("%q: %q, NormalizeMAC %q", s, a, NormalizeMAC(s))
		}
		if want := s == "00-15-5D-64-51-0E" || s == "c6:71:81:86:b2:77" || s == "00-15:5d-64:51-0e"; okS != want {
			t.Errorf("%q: taken %v", s, okS)
		}
	}
}

var addrSeeds = []string{"10.128.11.202", "0.0.0.0", "255.255.255.255", "256.1.1.1", "010.1.1.1", "1.2.3", "1.2.3.4.5", "1..2.3",
	".1.2.3", "1.2.3.", " 10.0.0.1", "10.0.0.1/24", "10.0.0.1%eth0", "fd00::1", "::ffff:10.0.0.1", "1.2.3.04", "1234.1.1.1", ""}

// ParseAddrBytes reads what ParseAddr reads.
func TestParseAddrBytes(t *testing.T) {
	for _, s := range addrSeeds {
		if got, want := ParseAddrBytes([]byte(s)), ParseAddr(s); got != want {
			t.Errorf("%q: %v, ParseAddr %v", s, got, want)
		}
	}
	if a := ParseAddrBytes([]byte("10.128.11.202")); a != netip.MustParseAddr("10.128.11.202") {
		t.Errorf("got %v", a)
	}
}

func FuzzParseAddrBytes(f *testing.F) {
	for _, s := range addrSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := ParseAddrBytes([]byte(s)), ParseAddr(s); got != want {
			t.Errorf("%q: %v, ParseAddr %v", s, got, want)
		}
	})
}
