package formats

// nodePool lends the maps and arrays of the trees valueReader builds, for
// lists whose builder keeps nothing of an element's tree but strings and
// numbers (a load balancer, a remote endpoint): the next element is read
// into the same maps instead of new ones. The tens of thousands of
// elements of a large cluster's lists otherwise leave five to ten maps
// each for the collector, most of the garbage of a load, and the model's
// objects end up scattered among them.
type nodePool struct {
	maps []map[string]any // free
	// arrays holds the free arrays by class, each in its box (arrayOf).
	arrays [arrayClasses][]any
	// lent: what the element being read got, given back or let go by end.
	lentMaps   []map[string]any
	lentArrays []any
}

const (
	// Maps of more members and arrays of more elements are not kept for
	// the next element (they are rare, and would hold their room).
	poolMapMax = 16
	// arrayClasses: arrays are lent by capacity, powers of two up to
	// 1<<(arrayClasses-1).
	arrayClasses = 9
	// poolMax bounds each free list.
	poolMax = 1024
	// poolBoxSearch is how many free arrays arrayOf looks at for a box of
	// the length it needs.
	poolBoxSearch = 4
)

// newMap is a map to fill: a free one, or a new one that is lent.
func (np *nodePool) newMap() map[string]any {
	if np == nil {
		return map[string]any{}
	}
	var m map[string]any
	if n := len(np.maps); n > 0 {
		m = np.maps[n-1]
		np.maps = np.maps[:n-1]
	} else {
		m = map[string]any{}
	}
	np.lentMaps = append(np.lentMaps, m)
	return m
}

// arrayOf is an array of elems (copied), boxed as a tree holds it. An
// empty one is not nil (encoding/json's `[]` is not). From the pool, a
// free array of its class is filled, and kept in its box when that has
// elems' length: boxing a slice allocates its header, and most arrays of
// a list's elements (an endpoint's one policy and one IP configuration)
// have the length of the one before.
func (np *nodePool) arrayOf(elems []any) any {
	n := len(elems)
	if n == 0 {
		return []any{}
	}
	c := arrayClass(n)
	if np == nil || c >= arrayClasses {
		return append(make([]any, 0, n), elems...)
	}
	free := np.arrays[c]
	var box any
	// A box of that length among the last few freed.
	for k := len(free) - 1; k >= 0 && k >= len(free)-poolBoxSearch; k-- {
		if len(free[k].([]any)) == n {
			box = free[k]
			free[k] = free[len(free)-1]
			free = free[:len(free)-1]
			break
		}
	}
	if box == nil {
		var a []any
		if k := len(free) - 1; k >= 0 {
			a = free[k].([]any)[:n]
			free = free[:k]
		} else {
			a = make([]any, n, 1<<c)
		}
		box = a
	}
	np.arrays[c] = free
	copy(box.([]any), elems)
	np.lentArrays = append(np.lentArrays, box)
	return box
}

// arrayClass is the power of two an array of n elements is lent at.
func arrayClass(n int) int {
	c := 0
	for 1<<c < n {
		c++
	}
	return c
}

// begin starts an element: what was lent before and not given back (a
// value kept outside the elements) is let go.
func (np *nodePool) begin() {
	if np == nil {
		return
	}
	clear(np.lentMaps)
	clear(np.lentArrays)
	np.lentMaps, np.lentArrays = np.lentMaps[:0], np.lentArrays[:0]
}

// end closes an element: its maps and arrays come back to be lent again
// when reuse is true (nothing of its tree was kept), else they stay with
// the tree.
func (np *nodePool) end(reuse bool) {
	if np == nil {
		return
	}
	if reuse {
		for _, m := range np.lentMaps {
			if len(m) <= poolMapMax && len(np.maps) < poolMax {
				clear(m)
				np.maps = append(np.maps, m)
			}
		}
		for _, box := range np.lentArrays {
			a := box.([]any)
			if c := arrayClass(cap(a)); len(np.arrays[c]) < poolMax {
				clear(a[:cap(a)])
				np.arrays[c] = append(np.arrays[c], box)
			}
		}
	}
	np.begin()
}
