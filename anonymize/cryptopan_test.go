package anonymize

import (
	"net/netip"
	"testing"
)

// The sample key of the Crypto-PAn reference distribution.
var referenceKey = []byte{21, 34, 23, 141, 51, 164, 207, 128, 19, 10, 91, 22, 73, 144, 125, 16,
	216, 152, 143, 131, 121, 121, 101, 39, 98, 87, 76, 45, 42, 132, 34, 2}

// TestCryptoPAnReferenceVectors: addresses from the reference
// distribution's sample trace and their sanitized form, and IPv6 vectors
// other implementations agree on.
func TestCryptoPAnReferenceVectors(t *testing.T) {
	c, err := newPanCipher(referenceKey)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range [][2]string{
		{"128.11.68.132", "135.242.180.132"},
		{"129.118.74.4", "134.136.186.123"},
		{"130.132.252.244", "133.68.164.234"},
		{"141.223.7.43", "141.167.8.160"},
		{"141.233.145.108", "141.129.237.235"},
		{"152.163.225.39", "151.140.114.167"},
		{"156.29.3.236", "147.225.12.42"},
		{"165.247.96.84", "162.9.99.234"},
		{"192.102.249.13", "252.138.62.131"},
		{"24.0.250.221", "100.15.198.226"},
		{"4.3.88.225", "124.60.155.63"},
		{"64.14.118.196", "0.255.183.58"},
		{"10.185.25.118", "117.161.29.118"},
		{"::1", "78ff:f001:9fc0:20df:8380:b1f1:704:ed"},
		{"2001:db8::1", "4401:2bc:603f:d91d:27f:ff8e:e6f1:dc1e"},
	} {
		a := netip.MustParseAddr(v[0])
		b := a.AsSlice()
		got, _ := netip.AddrFromSlice(c.permute(b, 0, len(b)*8))
		if got.String() != v[1] {
			t.Errorf("%s -> %s, want %s", v[0], got, v[1])
		}
	}
}

// TestPermutePrefixPreserving: addresses sharing n bits share n bits after
// mapping, bits outside the range are kept, and distinct inputs stay distinct.
func TestPermutePrefixPreserving(t *testing.T) {
	c, _ := newPanCipher(referenceKey)
	seen := map[[4]byte][4]byte{}
	for i := 0; i < 4096; i++ {
		in := [4]byte{10, byte(i >> 8), byte(i), byte(i * 7)}
		var out [4]byte
		copy(out[:], c.permute(in[:], 8, 24))
		if out[0] != 10 || out[3] != in[3] {
			t.Fatalf("%v -> %v: kept bits changed", in, out)
		}
		seen[in] = out
	}
	outs := map[[4]byte]bool{}
	for in, out := range seen {
		if outs[out] {
			t.Fatalf("%v: output %v twice", in, out)
		}
		outs[out] = true
		for in2, out2 := range seen {
			if common(in[:], in2[:]) != common(out[:], out2[:]) {
				t.Fatalf("%v/%v share %d bits, mapped %v/%v share %d", in, in2, common(in[:], in2[:]), out, out2, common(out[:], out2[:]))
			}
		}
		if len(outs) > 300 {
			break
		}
	}
}

func common(a, b []byte) int {
	for i := range a {
		if x := a[i] ^ b[i]; x != 0 {
			n := 0
			for x&0x80 == 0 {
				x <<= 1
				n++
			}
			return i*8 + n
		}
	}
	return len(a) * 8
}
