package snapshot

import (
	"slices"
	"strings"
)

// Pairs are a few keys and their values, each key once: a Node's
// annotations, a VFP rule's match conditions ("Destination IP",
// "Protocols", ...). A list, not a map: a large cluster's model holds tens
// of thousands of such sets of a handful each, and a map each was most of
// their memory (1,000 Nodes' annotations: 0.34 MB of maps for 0.1 MB of
// pairs). Their JSON is the object a map's was.
type Pairs []Pair

// Pair is one key of Pairs and its value.
type Pair struct {
	Key, Value string
}

// SortedPairs sorts ps by key, in place; of pairs with one key the last
// is kept, as a JSON object's decoder keeps it. Two sets read from the
// same object in any order are then equal (KubeNodeTable compares them).
func SortedPairs(ps ...Pair) Pairs {
	slices.SortStableFunc(ps, func(a, b Pair) int { return strings.Compare(a.Key, b.Key) })
	out := ps[:0]
	for i, p := range ps {
		if i+1 < len(ps) && ps[i+1].Key == p.Key {
			continue
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil
	}
	return Pairs(out)
}

// Lookup is the value of key and whether the set has it.
func (ps Pairs) Lookup(key string) (string, bool) {
	for _, p := range ps {
		if p.Key == key {
			return p.Value, true
		}
	}
	return "", false
}

// Get is the value of key, "" when the set has none.
func (ps Pairs) Get(key string) string {
	v, _ := ps.Lookup(key)
	return v
}

// Set gives key its value, in its place when it is there already.
func (ps *Pairs) Set(key, value string) {
	for i := range *ps {
		if (*ps)[i].Key == key {
			(*ps)[i].Value = value
			return
		}
	}
	*ps = append(*ps, Pair{key, value})
}

// MarshalJSON writes the object the map it replaces wrote: keys sorted,
// HTML escaped or not as the caller's encoder says.
func (ps Pairs) MarshalJSON() ([]byte, error) {
	if ps == nil {
		return []byte("null"), nil
	}
	m := make(map[string]string, len(ps))
	for _, p := range ps {
		m[p.Key] = p.Value
	}
	return marshalUnescaped(m)
}
