package snapshot

import (
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
	encodings := func(v any) [2]string { return [2]string{encodeJSON(t, v, true, ""), encodeJSON(t, v, false, "")} }
	if got, want := encodings(node{a}), encodings(mapNode{m}); got != want {
		t.Errorf("pairs %q encode as\n%s\nthe map as\n%s", pairs, got, want)
	}
}

func TestAnnotationsEncodeAsTheMap(t *testing.T) {
	sameAsMap(t, nil)
	sameAsMap(t, []Annotation{{AnnotationFlannelBackendData, `{"VNI":4096,"VtepMAC":"0e:2a:0a:f4:01:00"}`}, {AnnotationFlannelPublicIP, "10.0.1.10"}})
	sameAsMap(t, []Annotation{{"z", "<b>&amp;</b>"}, {"a<>&", "\u2028 \x00 \xff tab\t"}, {"é", "日本"}, {"z", "last"}})
	if got := encodeJSON(t, Annotations(nil), true, ""); got != "null\n" {
		t.Errorf("nil encodes as %s, want null like a nil map", got)
	}
}

func FuzzAnnotationsEncodeAsTheMap(f *testing.F) {
	f.Add("a", "1", "b", "<&>")
	f.Add("k", "\xff\xfe", "k", "\u2029")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		sameAsMap(t, []Annotation{{k1, v1}, {k2, v2}})
	})
}
