package formats

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// fastDecode reads one whole document with valueReader (buffer of size
// bytes, the reader giving one byte at a time when slow).
func fastDecode(data []byte, size int, slow bool) (any, error) {
	var r io.Reader = bytes.NewReader(data)
	if slow {
		r = iotest.OneByteReader(r)
	}
	vr := newValueReaderSize(r, size)
	if _, ok := vr.nonSpace(); !ok {
		return nil, errFastSyntax
	}
	v, err := vr.value(0)
	if err != nil {
		return nil, err
	}
	if _, more := vr.nonSpace(); more {
		return nil, errFastSyntax
	}
	return v, nil
}

// encodingJSON is the reference: encoding/json into `any` with UseNumber,
// nothing after the value.
func encodingJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errFastSyntax
	}
	return v, nil
}

// checkFast: valueReader accepts exactly what encoding/json accepts and
// builds the same tree (reflect.DeepEqual: strings byte for byte, numbers
// as their literals), whatever its buffer size and however the reader
// splits the bytes.
func checkFast(t *testing.T, data []byte) {
	t.Helper()
	want, werr := encodingJSON(data)
	for _, c := range []struct {
		size int
		slow bool
	}{{64 << 10, false}, {1, true}, {7, false}, {16, true}} {
		got, err := fastDecode(data, c.size, c.slow)
		if (err != nil) != (werr != nil) {
			t.Fatalf("%q (buffer %d, one byte at a time %v): valueReader error %v, encoding/json %v", data, c.size, c.slow, err, werr)
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q (buffer %d): valueReader %#v, encoding/json %#v", data, c.size, got, want)
		}
	}
}

var fastSeeds = []string{
	`{"ID":"BDD640FB-0667-1AD1-1C80-317FA3B1799D","Flags":1,"Policies":[{"Type":"ProviderAddress","Settings":{"ProviderAddress":"10.0.1.10"}}],"IpConfigurations":[{"IpAddress":"10.128.0.2","PrefixLength":24}]}`,
	`[1,-0,0.5,-1.5e+10,2E-3,1e5,123456789012345678901234567890]`,
	`"esc \" \\ \/ \b \f \n \r \t \u0041 \u00e9 \ud83d\ude00 \ud800 \udc00x \ud800\u0041 \uDBFF\uDFFF"`,
	"\"bad utf-8 \xff \xc3\x28 \xed\xa0\x80 ok \xc3\xa9\"",
	`{"a":1,"a":2,"A":3}`,
	`{"a":[],"b":{},"c":[[]],"d":null,"e":true,"f":false}`,
	` { "spaced" : [ 1 , 2 ] } `,
	`{"Name":"@{Type=ProviderAddress; ProviderAddress=10.0.0.1}"}`,
	// refused
	`[1,]`, `{"a":1,}`, `{"a" 1}`, `{a:1}`, `[01]`, `[1.]`, `[.5]`, `[-]`, `[1e]`, `[+1]`, `tru`, `nul`, `[true false]`,
	"\"ctrl \x01\"", `"\x"`, `"\u12G4"`, `"unterminated`, `{"a":1}}`, `[1]]`, `{]`, `[}`, `"\'"`, `[NaN]`, `[Infinity]`,
	``, ` `, `{"a":"b"`, `[1,2`, `1 2`, `"a" "b"`,
}

func TestFastValueMatchesEncodingJSON(t *testing.T) {
	for _, s := range fastSeeds {
		checkFast(t, []byte(s))
	}
	// Nesting at and past encoding/json's limit.
	for _, depth := range []int{maxFastDepth - 1, maxFastDepth, maxFastDepth + 1} {
		checkFast(t, append(bytes.Repeat([]byte("["), depth), bytes.Repeat([]byte("]"), depth)...))
	}
}

func FuzzFastValue(f *testing.F) {
	for _, s := range fastSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkFast(t, data) })
}

// A reader's error (the part limit) comes back as itself, not as a syntax
// error: the loader skips the file with a note instead of re-reading it.
func TestFastReaderError(t *testing.T) {
	r := io.MultiReader(bytes.NewReader([]byte(`[{"a":"partial`)), iotest.ErrReader(errPartLimit))
	if _, err := parseEachReader(r, record); err != errPartLimit {
		t.Errorf("got %v, want the reader's error", err)
	}
}

// endpointsDoc is an HNS endpoint list like a large cluster's: remote
// endpoints with a ProviderAddress each.
func endpointsDoc(n int) []byte {
	var b bytes.Buffer
	b.WriteByte('[')
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"ID":"%08X-0667-1AD1-1C80-317FA3B1799D","HostComputeNetwork":"4F0B5A43-2C1E-4C36-9B1A-6E2B8D1C0A11","Flags":1,`+
			`"Policies":[{"Type":"ProviderAddress","Settings":{"ProviderAddress":"10.0.%d.10"}}],"IpConfigurations":[{"IpAddress":"10.128.%d.%d"}],`+
			`"MacAddress":"02-11-0a-80-%02x-%02x","SchemaVersion":{"Major":2,"Minor":0}}`, i, i%250, i/250%250, i%250, i/256%256, i%256)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// The streaming decoder against encoding/json on the same document, side
// by side: go test -run '^$' -bench 'Decode(Fast|EncodingJSON)' -benchmem ./formats
func BenchmarkDecodeFast(b *testing.B) {
	doc := endpointsDoc(5000)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseEachReader(bytes.NewReader(doc), func(o obj, _ int) *struct{} { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeEncodingJSON(b *testing.B) {
	doc := endpointsDoc(5000)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseEach(doc, func(o obj, _ int) *struct{} { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

// emptyReader returns nothing, and no error, for ever.
type emptyReader struct{}

func (emptyReader) Read([]byte) (int, error) { return 0, nil }

// A reader that returns nothing, and no error, for ever ends the stream
// with io.ErrNoProgress instead of a loop without end.
func TestFastReaderNoProgress(t *testing.T) {
	r := io.MultiReader(bytes.NewReader([]byte(`[{"a":1},`)), emptyReader{})
	if _, err := parseEachReader(r, record); err != io.ErrNoProgress {
		t.Errorf("got %v, want io.ErrNoProgress", err)
	}
}

// A reader that alternates nothing and one byte makes progress: it is read
// to its end.
func TestFastReaderSlowButMoving(t *testing.T) {
	doc := []byte(`[` + strings.Repeat(`{"a":1},`, 100) + `{"a":2}]`)
	r := &alternating{data: doc}
	out, err := parseEachReader(r, record)
	if err != nil || len(out) != 101 {
		t.Errorf("%d objects, %v", len(out), err)
	}
}

// alternating returns nothing, then one byte, and so on.
type alternating struct {
	data []byte
	odd  bool
}

func (a *alternating) Read(p []byte) (int, error) {
	if len(a.data) == 0 {
		return 0, io.EOF
	}
	if a.odd = !a.odd; a.odd {
		return 0, nil
	}
	p[0], a.data = a.data[0], a.data[1:]
	return 1, nil
}
