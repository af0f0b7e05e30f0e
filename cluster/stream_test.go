package cluster

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

func framed(t testing.TB, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := WriteStream(&b, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func randomBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func TestStreamRoundTrip(t *testing.T) {
	for _, n := range []int{0, 1, 255 << 10, 256 << 10, 256<<10 + 1, 3<<20 + 17} {
		data := randomBytes(n, uint64(n))
		var out bytes.Buffer
		got, err := ReadStream(bytes.NewReader(framed(t, data)), &out, 1<<30)
		if err != nil || got != int64(n) || !bytes.Equal(out.Bytes(), data) {
			t.Fatalf("%d bytes: got %d, err %v, equal %v", n, got, err, bytes.Equal(out.Bytes(), data))
		}
	}
}

func streamErr(t *testing.T, err error) *StreamError {
	t.Helper()
	var se *StreamError
	if !errors.As(err, &se) {
		t.Fatalf("want a StreamError, got %v", err)
	}
	return se
}

// Every cut, at any byte, is found and called a cut; the bytes before it
// that were whole are counted.
func TestStreamCutAnywhere(t *testing.T) {
	data := randomBytes(600<<10, 7)
	s := framed(t, data)
	for _, at := range []int{0, 5, len(streamMagic), len(streamMagic) + 3, 300 << 10, len(s) - 33, len(s) - 1} {
		_, err := ReadStream(bytes.NewReader(s[:at]), &bytes.Buffer{}, 1<<30)
		if se := streamErr(t, err); se.Kind != "cut" {
			t.Errorf("cut at %d: %v", at, err)
		}
	}
	// A cut after the first whole chunk says how much arrived.
	_, err := ReadStream(bytes.NewReader(s[:len(streamMagic)+5+256<<10+4+100]), &bytes.Buffer{}, 1<<30)
	if se := streamErr(t, err); se.Received != 256<<10 || !strings.Contains(se.Error(), "chunk 1") {
		t.Errorf("received %d: %v", se.Received, err)
	}
}

func TestStreamCorruption(t *testing.T) {
	data := randomBytes(400<<10, 9)
	s := framed(t, data)
	flip := func(i int) []byte {
		c := bytes.Clone(s)
		c[i] ^= 0x20
		return c
	}
	cases := map[string]struct {
		in   []byte
		kind string
		want string
	}{
		"data byte":       {flip(len(streamMagic) + 5 + 1000), "corrupt", "chunk 0"},
		"second chunk":    {flip(len(streamMagic) + 5 + 256<<10 + 4 + 5 + 10), "corrupt", "chunk 1"},
		"length":          {flip(len(streamMagic) + 1), "corrupt", "chunk 0 claims"},
		"frame kind":      {flip(len(streamMagic)), "corrupt", "kind"},
		"end total":       {flip(len(s) - 33), "corrupt", "counts"},
		"end sum":         {flip(len(s) - 1), "corrupt", "SHA-256"},
		"text before":     {append([]byte("error: HNS not found\r\n"), s...), "not a stream", "error: HNS"},
		"only some text":  {[]byte("Access is denied."), "not a stream", "Access is denied"},
		"header cut":      {[]byte("DIAGST"), "cut", "header"},
		"checksum cut":    {s[:len(streamMagic)+5+256<<10+2], "cut", "checksum"},
		"too large limit": {s, "too large", "limit"},
	}
	for name, c := range cases {
		limit := int64(1 << 30)
		if name == "too large limit" {
			limit = 300 << 10
		}
		_, err := ReadStream(bytes.NewReader(c.in), &bytes.Buffer{}, limit)
		if se := streamErr(t, err); se.Kind != c.kind || !strings.Contains(se.Error(), c.want) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func FuzzReadStream(f *testing.F) {
	f.Add(framed(f, nil))
	f.Add(framed(f, []byte("PK\x03\x04 a small bundle")))
	f.Add(framed(f, randomBytes(3000, 1))[:2000])
	f.Add([]byte("DIAGSTREAM1\nC\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, in []byte) {
		var out bytes.Buffer
		n, err := ReadStream(bytes.NewReader(in), &out, 1<<20)
		if n != int64(out.Len()) {
			t.Fatalf("counted %d, wrote %d", n, out.Len())
		}
		var se *StreamError
		if err != nil && !errors.As(err, &se) {
			t.Fatalf("not a StreamError: %v", err)
		}
	})
}
