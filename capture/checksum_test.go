package capture

import (
	"math/rand/v2"
	"testing"

	"github.com/wincni/diag/gen"
)

func TestChecksumMatchesRFC1071(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 300; n++ {
		b := make([]byte, r.IntN(1600))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		initial := r.Uint32() & 0x3ffff
		if got, want := checksum(b, initial), gen.OnesComplement(b, initial); got != want {
			t.Fatalf("len %d initial %#x: %#04x, want %#04x", len(b), initial, got, want)
		}
	}
}

func FuzzChecksum(f *testing.F) {
	f.Add([]byte{0x45, 0, 0, 0x54}, uint32(0))
	f.Fuzz(func(t *testing.T, b []byte, initial uint32) {
		initial &= 0xffffff
		if got, want := checksum(b, initial), gen.OnesComplement(b, initial); got != want {
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

// BenchmarkChecksum240 is the common small segment: a 200-byte payload
// behind a 20-byte TCP header, with the 20-byte IP header's length.
func BenchmarkChecksum240(b *testing.B) {
	buf := make([]byte, 220)
	for i := range buf {
		buf[i] = byte(i * 7)
	}
	b.SetBytes(220)
	for b.Loop() {
		checksum(buf, 123)
	}
}
