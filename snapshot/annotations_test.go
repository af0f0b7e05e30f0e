package snapshot

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestAnnotationsLookup(t *testing.T) {
	a := NewAnnotations(Annotation{"b", "2"}, Annotation{"a", "1"}, Annotation{"b", "3"}, Annotation{"c", ""})
	if len(a) != 3 || a[0].Key != "a" || a[1].Key != "b" || a[2].Key != "c" {
		t.Fatalf("not sorted and unique: %v", a)
	}
	if v, ok := a.Lookup("b"); !ok || v != "3" {
		t.Errorf(`Lookup("b") = %q, %v; want the last pair's "3"`, v, ok)
	}
	if v, ok := a.Lookup("c"); !ok || v != "" {
		t.Errorf(`Lookup("c") = %q, %v; want an empty value that is there`, v, ok)
	}
	if v, ok := a.Lookup("d"); ok || v != "" || a.Get("d") != "" {
		t.Errorf(`Lookup("d") = %q, %v; want nothing`, v, ok)
	}
	if NewAnnotations() != nil {
		t.Error("no pairs should be nil, so that the JSON omits them")
	}
}

// encodings are a value's JSON through json.Marshal and through an encoder
// that does not escape HTML, the two ways diag writes JSON.
func encodings(t testing.TB, v any) [2]string {
	t.Helper()
	m, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return [2]string{string(m), b.String()}
}

// sameAsMap checks that pairs encode as the map they replace does.
func sameAsMap(t testing.TB, pairs []Annotation) {
	t.Helper()
	m := map[string]string{}
	for _, p := range pairs {
		m[p.Key] = p.Value
	}
	a := NewAnnotations(append([]Annotation(nil), pairs...)...)
	if len(m) == 0 {
		m = nil
	}
	type node struct {
		A Annotations `json:"annotations,omitempty"`
	}
	type mapNode struct {
		A map[string]string `json:"annotations,omitempty"`
	}
	if got, want := encodings(t, node{a}), encodings(t, mapNode{m}); got != want {
		t.Errorf("pairs %q encode as\n%s\nthe map as\n%s", pairs, got, want)
	}
}

func TestAnnotationsEncodeAsTheMap(t *testing.T) {
	sameAsMap(t, nil)
	sameAsMap(t, []Annotation{{AnnotationFlannelBackendData, `{"VNI":4096,"VtepMAC":"0e:2a:0a:f4:01:00"}`}, {AnnotationFlannelPublicIP, "10.0.1.10"}})
	sameAsMap(t, []Annotation{{"z", "<b>&amp;</b>"}, {"a<>&", "\u2028 \x00 \xff tab\t"}, {"é", "日本"}, {"z", "last"}})
	if got := encodings(t, Annotations(nil)); got[0] != "null" {
		t.Errorf("nil encodes as %s, want null like a nil map", got[0])
	}
}

func FuzzAnnotationsEncodeAsTheMap(f *testing.F) {
	f.Add("a", "1", "b", "<&>")
	f.Add("k", "\xff\xfe", "k", "\u2029")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		sameAsMap(t, []Annotation{{k1, v1}, {k2, v2}})
	})
}
