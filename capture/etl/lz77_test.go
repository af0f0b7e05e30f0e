package etl

import (
	"bytes"
	"errors"
	"math/rand"
	"testing"

	"github.com/wincni/diag/capture/etl/etltest"
)

func TestInflateSpecExample(t *testing.T) {
	// [MS-XCA] 3.1's example: "abc" a hundred times, one literal run and
	// one long overlapping match whose length takes the nibble, the byte
	// and the u16 forms.
	in := []byte{0xff, 0xff, 0xff, 0x1f, 0x61, 0x62, 0x63, 0x17, 0x00, 0x0f, 0xff, 0x26, 0x01}
	out, err := inflate(nil, in, 300)
	if err != nil {
		t.Fatal(err)
	}
	if want := bytes.Repeat([]byte("abc"), 100); !bytes.Equal(out, want) {
		t.Fatalf("got %q", out)
	}
}

func TestInflateRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	random := make([]byte, 5000)
	rng.Read(random)
	cases := map[string][]byte{
		"empty":      {},
		"one byte":   {7},
		"random":     random,
		"zeros 70k":  make([]byte, 70000), // a match length past the u16 form
		"run 300":    bytes.Repeat([]byte{1}, 300),
		"text":       bytes.Repeat([]byte("pktmon drop at VFP "), 400),
		"mixed":      append(append(bytes.Repeat([]byte("ab"), 20), random[:100]...), bytes.Repeat([]byte("ab"), 9)...),
		"exactly 32": bytes.Repeat([]byte{9, 8, 7, 6}, 8),
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			c := etltest.Compress(src)
			out, err := inflate(nil, c, len(src))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out, src) {
				t.Fatalf("round trip differs: %d bytes back of %d", len(out), len(src))
			}
		})
	}
}

func TestInflateRefuses(t *testing.T) {
	cases := map[string]struct {
		in   []byte
		want int
	}{
		"match before any output":   {[]byte{0, 0, 0, 0x80, 0x00, 0x00}, 10},
		"longer than the header":    {etltest.Compress(bytes.Repeat([]byte{1}, 100)), 50},
		"shorter than the header":   {etltest.Compress([]byte("abc")), 4},
		"cut in a match":            {[]byte{0, 0, 0, 0x40, 'a', 0x00}, 10},
		"long length under its min": {[]byte{0, 0, 0, 0x40, 'a', 0x07, 0x00, 0x0f, 0xff, 0x01, 0x00}, 100},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := inflate(nil, c.in, c.want)
			if !errors.Is(err, errLZ77) {
				t.Fatalf("err = %v, want a Plain LZ77 error", err)
			}
		})
	}
}

func FuzzInflate(f *testing.F) {
	f.Add([]byte{0xff, 0xff, 0xff, 0x1f, 0x61, 0x62, 0x63, 0x17, 0x00, 0x0f, 0xff, 0x26, 0x01}, 300)
	f.Add(etltest.Compress(bytes.Repeat([]byte("abcd"), 50)), 200)
	f.Fuzz(func(t *testing.T, in []byte, want int) {
		if want < 0 || want > 1<<20 {
			return
		}
		out, err := inflate(nil, in, want)
		if len(out) > want {
			t.Fatalf("%d bytes out, over the %d asked", len(out), want)
		}
		if err == nil && len(out) != want {
			t.Fatalf("no error with %d bytes of %d", len(out), want)
		}
	})
}
