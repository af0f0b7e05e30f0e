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

// inflateRef is [MS-XCA] 2.4's decompression written plainly, a byte at
// a time, to hold inflate's runs and doubling copies to.
func inflateRef(src []byte, want int) ([]byte, bool) {
	var out []byte
	var flags uint32
	nflags, in, nibble := 0, 0, -1
	u16 := func(i int) int { return int(src[i]) | int(src[i+1])<<8 }
	for {
		if nflags == 0 {
			if in+4 > len(src) {
				break
			}
			flags = uint32(u16(in)) | uint32(u16(in+2))<<16
			in, nflags = in+4, 32
		}
		nflags--
		if flags&(1<<nflags) == 0 {
			if in >= len(src) {
				break
			}
			out = append(out, src[in])
			in++
		} else {
			if in == len(src) {
				break
			}
			if in+2 > len(src) {
				return nil, false
			}
			m := u16(in)
			in += 2
			length, offset := m&7, m>>3+1
			if length == 7 {
				if nibble < 0 {
					if in >= len(src) {
						return nil, false
					}
					length, nibble = int(src[in]&15), in
					in++
				} else {
					length, nibble = int(src[nibble]>>4), -1
				}
				if length == 15 {
					if in >= len(src) {
						return nil, false
					}
					length = int(src[in])
					in++
					if length == 255 {
						if in+2 > len(src) {
							return nil, false
						}
						length = u16(in)
						in += 2
						if length == 0 {
							if in+4 > len(src) {
								return nil, false
							}
							length = u16(in) | u16(in+2)<<16
							in += 4
						}
						if length < 22 {
							return nil, false
						}
						length -= 22
					}
					length += 15
				}
				length += 7
			}
			length += 3
			if offset > len(out) {
				return nil, false
			}
			for i := 0; i < length; i++ {
				if len(out) >= want {
					return nil, false
				}
				out = append(out, out[len(out)-offset])
			}
		}
		if len(out) > want {
			return nil, false
		}
	}
	return out, len(out) == want
}

func FuzzInflate(f *testing.F) {
	f.Add([]byte{0xff, 0xff, 0xff, 0x1f, 0x61, 0x62, 0x63, 0x17, 0x00, 0x0f, 0xff, 0x26, 0x01}, 300)
	f.Add(etltest.Compress(bytes.Repeat([]byte("abcd"), 50)), 200)
	f.Add(etltest.Compress([]byte("literal bytes, then a literal run cut short")), 43)
	f.Fuzz(func(t *testing.T, in []byte, want int) {
		if want < 0 || want > 1<<20 {
			return
		}
		out, err := inflate(nil, in, want)
		if len(out) > want {
			t.Fatalf("%d bytes out, over the %d asked", len(out), want)
		}
		ref, ok := inflateRef(in, want)
		if ok != (err == nil) || ok && !bytes.Equal(out, ref) {
			t.Fatalf("inflate: %v; the plain decoder: ok %v, equal %v", err, ok, bytes.Equal(out, ref))
		}
	})
}

func TestInflateAgreesWithPlainDecoder(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for i := 0; i < 2000; i++ {
		src := make([]byte, rng.Intn(3000))
		for j := range src {
			if rng.Intn(4) == 0 {
				src[j] = byte(rng.Intn(256))
			} else if j > 0 {
				src[j] = src[j-1-rng.Intn(min(j, 20))]
			}
		}
		c := etltest.Compress(src)
		if rng.Intn(3) == 0 && len(c) > 0 {
			c[rng.Intn(len(c))] ^= byte(1 + rng.Intn(255)) // damaged: both must refuse, or agree
		}
		out, err := inflate(nil, c, len(src))
		ref, ok := inflateRef(c, len(src))
		if ok != (err == nil) || ok && !bytes.Equal(out, ref) {
			t.Fatalf("case %d: inflate %v, plain decoder ok %v", i, err, ok)
		}
	}
}

// BenchmarkInflate measures inflation of a 1 MiB buffer of packets whose
// payloads are random (the worst case: literals), text-like, or zeros.
func BenchmarkInflate(b *testing.B) {
	rng := rand.New(rand.NewSource(3))
	random := make([]byte, 1<<20)
	rng.Read(random)
	text := bytes.Repeat([]byte("GET /api/v1/namespaces/kube-system/pods HTTP/1.1\r\nHost: 10.96.0.1\r\n"), (1<<20)/66+1)[:1<<20]
	for name, src := range map[string][]byte{"random": random, "text": text, "zeros": make([]byte, 1<<20)} {
		c := etltest.Compress(src)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			dst := make([]byte, 0, len(src))
			for b.Loop() {
				if _, err := inflate(dst, c, len(src)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
