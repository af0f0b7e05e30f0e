package anonymize

import (
	"math/rand/v2"
	"testing"
)

// referenceKey is the sample key of the Crypto-PAn reference distribution:
// any 32 bytes do for the properties below.
var referenceKey = []byte{21, 34, 23, 141, 51, 164, 207, 128, 19, 10, 91, 22, 73, 144, 125, 16,
	216, 152, 143, 131, 121, 121, 101, 39, 98, 87, 76, 45, 42, 132, 34, 2}

// TestPermuteNoFixedPoint: over a whole 8-bit range (the third octet of
// 192.168.0.0/16, the narrowest diag permutes) and many keys, no value is
// its own image, and every key gives a bijection.
func TestPermuteNoFixedPoint(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 1))
	for k := 0; k < 300; k++ {
		key := make([]byte, 32)
		for i := range key {
			key[i] = byte(r.Uint32())
		}
		c, _ := newPanCipher(key)
		var outs [256]bool
		for v := 0; v < 256; v++ {
			in := []byte{192, 168, byte(v), 7}
			out := c.permute(in, 16, 24)
			if out[2] == in[2] {
				t.Fatalf("key %x: %v is its own image", key, in)
			}
			if outs[out[2]] {
				t.Fatalf("key %x: %v: image %v twice", key, in, out)
			}
			outs[out[2]] = true
		}
	}
}

// TestPermuteSpreads: the images of one address over many keys spread
// over the half of the range its first permuted bit flips to. With the
// reference's padding, the decisions along a path repeated, and
// 192.168.50.21 kept its third octet under one key in 15.
func TestPermuteSpreads(t *testing.T) {
	r := rand.New(rand.NewPCG(27, 2))
	const keys = 25600
	var hist [256]int
	for k := 0; k < keys; k++ {
		key := make([]byte, 32)
		for i := range key {
			key[i] = byte(r.Uint32())
		}
		c, _ := newPanCipher(key)
		hist[c.permute([]byte{192, 168, 50, 21}, 16, 24)[2]]++
	}
	// 50 is 0b00110010: every image is 128 or more, 200 expected per
	// value; 300 is far outside what chance gives, and so is none.
	for v, n := range hist {
		if v < 128 && n > 0 || v >= 128 && (n > 300 || n == 0) {
			t.Errorf("third octet %d: %d of %d keys", v, n, keys)
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
