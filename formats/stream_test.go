package formats

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// record builds a comparable trace of what a parser hands its builder.
func record(o obj, i int) *string {
	b, _ := json.Marshal(map[string]any(o))
	s := string(b) + "#" + string(rune('0'+i%10))
	return &s
}

// recordCooked is record of an element whose raw members
// (streamOptions.raw) are read back as the tree would hold them.
func recordCooked(o obj, i int) *string {
	c := make(map[string]any, len(o))
	for k, v := range o {
		c[k] = cooked(v)
		// The objects of rawIn's array, as the reader leaves them.
		if a, ok := v.([]any); ok && k == "c" {
			for _, e := range a {
				if m, ok := e.(map[string]any); ok {
					if d, ok := m["d"]; ok {
						m["d"] = cooked(d)
					}
				}
			}
		}
	}
	return record(c, i)
}

// rawKeys are members the comparisons leave raw: the builders' own, and
// one that fuzzing reaches in a few bytes.
var rawKeys = []string{"ID", "HostComputeEndpoints", "a"}

func traces(ts []*string) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = *t
	}
	return out
}

// compareStreamAndWhole: whenever the streaming reader accepts a document,
// it hands the builder exactly what parseEach does; when parseEach rejects
// one, so does the reader.
func compareStreamAndWhole(t *testing.T, data []byte) {
	whole, werr := parseEach(data, record)
	streamed, serr := parseEachReader(bytes.NewReader(data), record)
	if serr != nil {
		return // the loader falls back to parseEach
	}
	if werr != nil {
		t.Fatalf("parseEach rejects %q (%v) but the reader accepts it", data, werr)
	}
	sameTraces(t, data, whole, streamed)
	// With members left raw, the builder reads the same values.
	raw, rerr := parseEachReaderWith(bytes.NewReader(data), recordCooked, streamOptions[string]{raw: rawKeys, rawIn: [2]string{"c", "d"}})
	if rerr != nil {
		t.Fatalf("%q: read with raw members: %v", data, rerr)
	}
	sameTraces(t, data, whole, raw)
}

func sameTraces(t *testing.T, data []byte, whole, streamed []*string) {
	t.Helper()
	a, b := traces(whole), traces(streamed)
	if len(a) != len(b) {
		t.Fatalf("%q: parseEach %d objects, reader %d", data, len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("%q: object %d differs:\n whole  %s\n stream %s", data, i, a[i], b[i])
		}
	}
}

func TestStreamMatchesWhole(t *testing.T) {
	for _, doc := range []string{
		`[{"ID":"a","Name":"x"},{"ID":"b"}]`,
		"\xEF\xBB\xBF [ {\"ID\":\"a\"}, 7, {\"ID\":\"b\"} ]\n",
		`{"apiVersion":"v1","kind":"List","items":[{"metadata":{"name":"n1"}},{"metadata":{"name":"n2"}}],"metadata":{}}`,
		`{"kind":"List","metadata":{},"items":null}`,
		`{"Success":true,"Error":"","Output":[{"ID":"a"}]}`,
		`{"ID":"single","Name":"only"}`,
		`[{"Policies":"@{Type=ProviderAddress; ProviderAddress=10.0.0.1}"}]`,
		`{"Items":[{"ID":"case"}]}`,
		// Raw members: plain, escaped, PowerShell's renderings, arrays
		// with a string that is not plain, nested, repeated, empty.
		`[{"ID":"a","HostComputeEndpoints":["X","y z",""],"a":["@{b=c}","S"]},{"ID":"\u0041","a":[1,"x"]},{"a":{"ID":"x"}}]`,
		`[{"a":"System.Object[]","ID":"@{x=1}","HostComputeEndpoints":[]},{"a":"x","a":"y","a":"z","a":"w","a":"v"}]`,
		`{"items":[{"ID":"k","a":["p","q"]}],"meta":{"ID":"m"}}`,
		`[{"c":[{"d":"x","e":"y"},{"d":["z"]},{"d":"\u0041"},{"f":{"d":"w"}},7],"d":"v"},{"c":{"d":"u"}},{"c":null,"a":{"c":[{"d":"t"}]}}]`,
	} {
		compareStreamAndWhole(t, []byte(doc))
		if _, err := parseEachReader(bytes.NewReader([]byte(doc)), record); err != nil {
			t.Errorf("%q not streamed: %v", doc, err)
		}
	}
}

func TestStreamFallsBack(t *testing.T) {
	for _, doc := range [][]byte{
		{0xFF, 0xFE, '[', 0, ']', 0},    // UTF-16: the whole-file path decodes it
		[]byte(`[{"ID":"a"},]`),         // malformed: the whole-file path words the error
		[]byte(`[{"ID":"a"}] trailing`), // trailing data
		[]byte(`{"items":{"not":"a list"}}`),
		[]byte(""),
	} {
		if _, err := parseEachReader(bytes.NewReader(doc), record); err == nil {
			t.Errorf("%q streamed", doc)
		}
	}
	if _, err := parseEachReader(bytes.NewReader([]byte{0xFF, 0xFE}), record); !errors.Is(err, errNotStreamable) {
		t.Errorf("UTF-16: %v", err)
	}
}

func FuzzStreamMatchesWhole(f *testing.F) {
	for _, s := range []string{`[{"a":1}]`, `{"items":[{"a":1}]}`, `{"Success":true,"Output":[{"a":1}]}`, `{"a":"@{b=c}"}`, `[{"ID":"x","a":["p","Sq"]}]`, `[{"c":[{"d":"e"}]}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { compareStreamAndWhole(t, data) })
}

// Documents where the streaming reader and the whole-file path could part:
// a second "items" (the whole-file path keeps the last, or the one spelled
// exactly) and nesting that reaches encoding/json's limit only counted
// from the top of the document.
func TestStreamMatchesWholeAtTheEdges(t *testing.T) {
	deep := func(open, close string, n int) string { return strings.Repeat(open, n) + strings.Repeat(close, n) }
	for _, doc := range []string{
		`{"items":[{"a":1}],"items":[{"b":2}]}`,
		`{"Items":[{"a":1}],"items":[{"b":2}]}`,
		`{"items":null,"items":[{"b":2}]}`,
		`{"items":[{"a":1}],"items":null}`,
		`{"ITEMS":[{"a":1}],"items":"x"}`,
		`{"items":[{"a":` + deep("[", "]", 9998) + `}]}`,
		`{"items":[{"a":` + deep("[", "]", 9997) + `}]}`,
		`{"x":` + deep("[", "]", 10000) + `}`,
		`{"x":` + deep("[", "]", 9999) + `}`,
		`[{"a":` + deep("[", "]", 9999) + `}]`,
	} {
		compareStreamAndWhole(t, []byte(doc))
	}
}

// A list whose elements' least size is known is made at once for as many
// as its size holds, never more than the objects a list may have (a zip
// entry may lie about its size); what it holds is the same.
func TestStreamListMadeAtItsSize(t *testing.T) {
	doc := []byte(`[{"a":1},{"a":2},{"a":3}]`)
	for _, c := range []struct {
		size, max int64
		want      int
	}{{int64(len(doc)), 100, len(doc) / 8}, {1 << 40, 5, 5}} {
		out, err := parseEachReaderWith(bytes.NewReader(doc), record, streamOptions[string]{size: c.size, elementSize: 8, maxCount: c.max})
		if err != nil {
			t.Fatal(err)
		}
		if cap(out) != c.want || len(out) != 3 || *out[2] != `{"a":3}#2` {
			t.Errorf("size %d: %d of %d made: %q", c.size, len(out), cap(out), traces(out))
		}
	}
}
