package capture

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// naiveChecksum is RFC 1071 as written: 16-bit big-endian words.
func naiveChecksum(b []byte, initial uint32) uint16 {
	sum := initial
	for len(b) >= 2 {
		sum += uint32(binary.BigEndian.Uint16(b))
		b = b[2:]
	}
	if len(b) == 1 {
		sum += uint32(b[0]) << 8
	}
	for sum > 0xffff {
		sum = sum>>16 + sum&0xffff
	}
	return ^uint16(sum)
}

func TestChecksumMatchesRFC1071(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 300; n++ {
		b := make([]byte, r.IntN(1600))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		initial := r.Uint32() & 0x3ffff
		if got, want := checksum(b, initial), naiveChecksum(b, initial); got != want {
			t.Fatalf("len %d initial %#x: %#04x, want %#04x", len(b), initial, got, want)
		}
	}
}

func FuzzChecksum(f *testing.F) {
	f.Add([]byte{0x45, 0, 0, 0x54}, uint32(0))
	f.Fuzz(func(t *testing.T, b []byte, initial uint32) {
		initial &= 0xffffff
		if got, want := checksum(b, initial), naiveChecksum(b, initial); got != want {
			t.Fatalf("%#04x, want %#04x", got, want)
		}
	})
}

func BenchmarkChecksum1400(b *testing.B) {
	buf := make([]byte, 1400)
	for i := range buf {
		buf[i] = byte(i * 7)
	}
	b.SetBytes(1400)
	for b.Loop() {
		checksum(buf, 123)
	}
}
