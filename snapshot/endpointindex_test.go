package snapshot

import (
	"fmt"
	"testing"
)

func TestEndpointIndexIsAMapFilledInOrder(t *testing.T) {
	var eps []*Endpoint
	for i := range 1000 {
		eps = append(eps, &Endpoint{ID: fmt.Sprintf("%08X-0000-0000-0000-000000000000", i%700), Name: fmt.Sprint(i)})
	}
	eps = append(eps, &Endpoint{Name: "no ID"})
	want := map[string]*Endpoint{}
	for _, e := range eps {
		want[e.ID] = e
	}
	x := NewEndpointIndex(eps)
	for id, e := range want {
		if got := x.Get(id); got != e {
			t.Fatalf("Get(%q) = endpoint %v, want %s (the last of that ID)", id, got, e.Name)
		}
		if p := x.Pos(id); eps[p] != e {
			t.Fatalf("Pos(%q) = %d, not the position of endpoint %s", id, p, e.Name)
		}
	}
	for _, id := range []string{"00000700-0000-0000-0000-000000000000", "x"} {
		if x.Get(id) != nil || x.Pos(id) != -1 {
			t.Errorf("%q is no endpoint's ID, found %v at %d", id, x.Get(id), x.Pos(id))
		}
	}
	if empty := NewEndpointIndex(nil); empty.Get("") != nil || empty.Pos("a") != -1 {
		t.Error("an empty index finds something")
	}
}
