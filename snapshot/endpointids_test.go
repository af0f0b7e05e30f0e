package snapshot

import (
	"fmt"
	"slices"
	"testing"
	"unsafe"
)

// A table keeps each ID once, at the position it was first added, through
// its growth.
func TestEndpointIDTableAdd(t *testing.T) {
	var tab EndpointIDTable
	for i := range 1000 {
		if p := tab.Add(fmt.Sprintf("ID-%d", i)); p != uint32(i) {
			t.Fatalf("ID-%d added at %d", i, p)
		}
	}
	for i := range 1000 {
		if p := tab.Add(fmt.Sprintf("ID-%d", i)); p != uint32(i) {
			t.Fatalf("ID-%d found at %d", i, p)
		}
	}
	if tab.Len() != 1000 || tab.At(999) != "ID-999" {
		t.Errorf("table of %d IDs, last %q", tab.Len(), tab.At(999))
	}
}

// An ID added by its bytes is the one added as a string, either way round,
// and a new one is copied (the bytes are a reader's buffer).
func TestEndpointIDTableAddBytes(t *testing.T) {
	var tab EndpointIDTable
	for i := range 600 {
		id := fmt.Sprintf("ID-%d", i)
		var p uint32
		if i%2 == 0 {
			p = tab.Add(id)
		} else {
			b := []byte(id)
			p = tab.AddBytes(b)
			copy(b, "XXXX")
		}
		if p != uint32(i) {
			t.Fatalf("%s added at %d", id, p)
		}
	}
	for i := range 600 {
		id := fmt.Sprintf("ID-%d", i)
		if p, q := tab.AddBytes([]byte(id)), tab.Add(id); p != uint32(i) || q != uint32(i) {
			t.Fatalf("%s found at %d by its bytes, %d as a string", id, p, q)
		}
	}
	if tab.Len() != 600 || tab.At(599) != "ID-599" {
		t.Errorf("table of %d IDs, last %q", tab.Len(), tab.At(599))
	}
}

// A table made for its IDs at once holds them as one grown to them, and
// grows on past the size it was given.
func TestEndpointIDTableGrow(t *testing.T) {
	var tab EndpointIDTable
	tab.Add("first")
	tab.Grow(100)
	if cap(tab.ids) < 100 || len(tab.slots) < 200 || tab.Add("first") != 0 {
		t.Fatalf("grown to %d IDs, %d slots", cap(tab.ids), len(tab.slots))
	}
	for i := range 300 {
		if p := tab.AddBytes([]byte(fmt.Sprintf("ID-%d", i))); p != uint32(i+1) {
			t.Fatalf("ID-%d added at %d", i, p)
		}
	}
	tab.Grow(10) // less than it holds: nothing changes
	if tab.Len() != 301 || tab.At(0) != "first" || tab.At(300) != "ID-299" || tab.Add("ID-150") != 151 {
		t.Errorf("table of %d IDs", tab.Len())
	}
}

// The backends read back as listed, duplicates and order kept.
func TestEndpointIDsList(t *testing.T) {
	ids := []string{"B", "A", "B", "C"}
	b := NewEndpointIDs(ids...)
	var got []string
	for i, id := range b.All() {
		if id != b.At(i) {
			t.Errorf("All gives %q at %d, At %q", id, i, b.At(i))
		}
		got = append(got, id)
	}
	if !slices.Equal(got, ids) || b.Len() != 4 || b.Table().Len() != 3 {
		t.Errorf("got %q (%d in a table of %d), want %q", got, b.Len(), b.Table().Len(), ids)
	}
	if !NewEndpointIDs().IsZero() || (EndpointIDs{}).Len() != 0 || b.IsZero() {
		t.Error("IsZero wrong")
	}
}

// The JSON of the backends is that of the list of strings they were,
// whatever the encoder escapes, and an empty list is left out.
func TestEndpointIDsJSON(t *testing.T) {
	ids := []string{"0DEC644C-DA2D-2156-913A-1734CCB68571", "<a&b>", "line\u2028sep", "bad\xffutf8", `q"\`, ""}
	type old struct {
		EndpointIDs []string `json:"endpointIDs,omitempty"`
	}
	type now struct {
		EndpointIDs EndpointIDs `json:"endpointIDs,omitzero"`
	}
	encode := func(v any, html bool) string { return encodeJSON(t, v, html, "  ") }
	for _, html := range []bool{false, true} {
		if w, g := encode(old{ids}, html), encode(now{NewEndpointIDs(ids...)}, html); w != g {
			t.Errorf("escapeHTML %v: got\n%s\nwant\n%s", html, g, w)
		}
		if w, g := encode(old{}, html), encode(now{}, html); w != g {
			t.Errorf("empty: got %s, want %s", g, w)
		}
	}
}

// Once shared, an ID an endpoint has is that endpoint's own string.
func TestEndpointIDTableShare(t *testing.T) {
	eps := []*Endpoint{{ID: string([]byte("0DEC644C-DA2D-2156-913A-1734CCB68571"))}}
	var tab EndpointIDTable
	b := tab.List([]uint32{tab.Add("35CE13AD-0EE8-02C7-743D-8CD6C5C101D9"), tab.Add("0DEC644C-DA2D-2156-913A-1734CCB68571")})
	tab.ShareEndpointIDs(NewEndpointIndex(eps))
	if unsafe.StringData(b.At(1)) != unsafe.StringData(eps[0].ID) || b.At(0) != "35CE13AD-0EE8-02C7-743D-8CD6C5C101D9" {
		t.Errorf("backends %q after sharing", []string{b.At(0), b.At(1)})
	}
	if p := tab.Add("0DEC644C-DA2D-2156-913A-1734CCB68571"); p != 1 {
		t.Errorf("an ID added again after sharing is at %d, want 1", p)
	}
}

// Warm only loads: the positions AddBytes gives after it are those it
// gives without, for IDs kept or not, empty, on an empty table too.
func TestEndpointIDTableWarmChangesNothing(t *testing.T) {
	var bs [][]byte
	for i := range 300 {
		bs = append(bs, fmt.Appendf(nil, "%08X-0000-0000-0000-%012d", i%120, i))
	}
	bs = append(bs, []byte{}, []byte("x"))
	var warmed, cold EndpointIDTable
	warmed.Warm(bs) // before any slot exists
	for i := 0; i < len(bs); i += 25 {
		batch := bs[i:min(i+25, len(bs))]
		warmed.Warm(batch)
		for _, b := range batch {
			if w, c := warmed.AddBytes(b), cold.AddBytes(b); w != c {
				t.Fatalf("%q: position %d after Warm, %d without", b, w, c)
			}
		}
	}
	if warmed.Len() != cold.Len() {
		t.Errorf("%d IDs after Warm, %d without", warmed.Len(), cold.Len())
	}
}
