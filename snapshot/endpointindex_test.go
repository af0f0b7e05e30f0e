package snapshot

import (
	"fmt"
	"strings"
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

// GetAll finds what Get finds, for every ID of a list longer than a
// batch: present, absent, duplicated (the last wins), in another case,
// and in a table crowded enough that probes run on past other IDs.
func TestGetAllMatchesGet(t *testing.T) {
	var eps []*Endpoint
	for i := range 300 {
		eps = append(eps, &Endpoint{ID: fmt.Sprintf("%08X-0000-0000-0000-%012d", i*7919, i%250), Name: fmt.Sprint(i)})
	}
	x := NewEndpointIndex(eps)
	ids := []string{"", "nope"}
	for i, e := range eps {
		ids = append(ids, e.ID, strings.ToLower(e.ID), fmt.Sprintf("%08X-0000-0000-0000-%012d", i*7919+1, i))
	}
	for _, n := range []int{0, 1, getBatch - 1, getBatch, getBatch + 1, len(ids)} {
		got := x.GetAll(ids[:n], nil)
		if len(got) != n {
			t.Fatalf("%d IDs: %d results", n, len(got))
		}
		for i, id := range ids[:n] {
			if got[i] != x.Get(id) {
				t.Errorf("%q: GetAll %v, Get %v", id, got[i], x.Get(id))
			}
		}
	}
	found := map[*Endpoint]bool{}
	for _, e := range x.GetAll(ids, nil) {
		if e != nil {
			found[e] = true
		}
	}
	if len(found) != len(eps) {
		t.Errorf("%d endpoints found, want all %d", len(found), len(eps))
	}
}

// Backends finds what Pos finds for each backend, in the list's order,
// whichever table it was last asked about and after its table grew.
func TestBackendsMatchPos(t *testing.T) {
	var eps []*Endpoint
	for i := range 300 {
		eps = append(eps, &Endpoint{ID: fmt.Sprintf("%08X-0000-0000-0000-%012d", i*7919, i%250)})
	}
	x := NewEndpointIndex(eps)
	var shared EndpointIDTable
	list := func(ids ...string) EndpointIDs {
		pos := make([]uint32, len(ids))
		for i, id := range ids {
			pos[i] = shared.Add(id)
		}
		return shared.List(pos)
	}
	check := func(b EndpointIDs) {
		t.Helper()
		n := 0
		for id, i := range x.Backends(b) {
			if id != b.At(n) || i != x.Pos(id) {
				t.Errorf("backend %d: %q at %d, want %q at %d", n, id, i, b.At(n), x.Pos(b.At(n)))
			}
			n++
		}
		if n != b.Len() {
			t.Errorf("%d backends yielded, want %d", n, b.Len())
		}
	}
	a := list(eps[3].ID, "nope", eps[3].ID, strings.ToLower(eps[7].ID), eps[299].ID)
	check(a)
	check(NewEndpointIDs(eps[10].ID, "", eps[20].ID))
	check(a)
	b := list(eps[100].ID, eps[3].ID) // the table grows
	check(b)
	check(a)
	check(EndpointIDs{})
	for range x.Backends(a) {
		break // a loop may stop early
	}
}
