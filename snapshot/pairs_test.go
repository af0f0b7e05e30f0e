package snapshot

import (
	"testing"
)

func TestPairsLookup(t *testing.T) {
	a := SortedPairs(Pair{"b", "2"}, Pair{"a", "1"}, Pair{"b", "3"}, Pair{"c", ""})
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
	if SortedPairs() != nil {
		t.Error("no pairs should be nil, so that the JSON omits them")
	}
}

// sameAsMap checks that pairs encode as the map they replace does.
func sameAsMap(t testing.TB, pairs []Pair) {
	t.Helper()
	m := map[string]string{}
	for _, p := range pairs {
		m[p.Key] = p.Value
	}
	a := SortedPairs(append([]Pair(nil), pairs...)...)
	if len(m) == 0 {
		m = nil
	}
	type node struct {
		A Pairs `json:"annotations,omitempty"`
	}
	type mapNode struct {
		A map[string]string `json:"annotations,omitempty"`
	}
	encodings := func(v any) [2]string { return [2]string{encodeJSON(t, v, true, ""), encodeJSON(t, v, false, "")} }
	if got, want := encodings(node{a}), encodings(mapNode{m}); got != want {
		t.Errorf("pairs %q encode as\n%s\nthe map as\n%s", pairs, got, want)
	}
}

func TestPairsEncodeAsTheMap(t *testing.T) {
	sameAsMap(t, nil)
	sameAsMap(t, []Pair{{AnnotationFlannelBackendData, `{"VNI":4096,"VtepMAC":"0e:2a:0a:f4:01:00"}`}, {AnnotationFlannelPublicIP, "10.0.1.10"}})
	sameAsMap(t, []Pair{{"z", "<b>&amp;</b>"}, {"a<>&", "\u2028 \x00 \xff tab\t"}, {"é", "日本"}, {"z", "last"}})
	// A VFP rule's conditions, in the order vfpctrl printed them.
	conds := Pairs{{"Protocols", "6"}, {"Destination IP", "10.0.0.0-10.0.0.255"}, {"<&>", "a<b>&\u2028"}}
	for _, escape := range []bool{true, false} {
		if got, want := encodeJSON(t, struct {
			C Pairs `json:"c"`
		}{conds}, escape, ""), encodeJSON(t, struct {
			C map[string]string `json:"c"`
		}{map[string]string{"Protocols": "6", "Destination IP": "10.0.0.0-10.0.0.255", "<&>": "a<b>&\u2028"}}, escape, ""); got != want {
			t.Errorf("conditions in vfpctrl's order (escape HTML %v): %s, want %s", escape, got, want)
		}
	}
	if got := encodeJSON(t, Pairs(nil), true, ""); got != "null\n" {
		t.Errorf("nil encodes as %s, want null like a nil map", got)
	}
}

func FuzzPairsEncodeAsTheMap(f *testing.F) {
	f.Add("a", "1", "b", "<&>")
	f.Add("k", "\xff\xfe", "k", "\u2029")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		sameAsMap(t, []Pair{{k1, v1}, {k2, v2}})
	})
}

func TestPairsSet(t *testing.T) {
	var c Pairs
	c.Set("Protocols", "6")
	c.Set("Destination IP", "10.0.0.1")
	c.Set("Protocols", "17")
	if len(c) != 2 || c.Get("Protocols") != "17" || c.Get("Destination IP") != "10.0.0.1" || c.Get("Source IP") != "" || c[0].Key != "Protocols" {
		t.Errorf("conditions %v", c)
	}
}
