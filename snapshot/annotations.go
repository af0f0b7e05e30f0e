package snapshot

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// Annotations are a Kubernetes object's metadata.annotations, sorted by
// key. Every bundle of a cluster carries all its Nodes, each with a few
// annotations, and a map per node costs three times its pairs: the 1,000
// Nodes of a large cluster's bundle held 0.34 MB of maps for 0.1 MB of
// pairs. Build them with NewAnnotations.
type Annotations []Annotation

// Annotation is one key of Annotations and its value.
type Annotation struct {
	Key, Value string
}

// NewAnnotations sorts pairs by key, in place; of pairs with one key the
// last is kept, as a JSON object's decoder keeps it.
func NewAnnotations(pairs ...Annotation) Annotations {
	slices.SortStableFunc(pairs, func(a, b Annotation) int { return strings.Compare(a.Key, b.Key) })
	out := pairs[:0]
	for i, p := range pairs {
		if i+1 < len(pairs) && pairs[i+1].Key == p.Key {
			continue
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil
	}
	return Annotations(out)
}

// Lookup is the value of key and whether the object has it.
func (a Annotations) Lookup(key string) (string, bool) {
	i, ok := slices.BinarySearchFunc(a, key, func(p Annotation, k string) int { return strings.Compare(p.Key, k) })
	if !ok {
		return "", false
	}
	return a[i].Value, true
}

// Get is the value of key, "" when the object has none.
func (a Annotations) Get(key string) string {
	v, _ := a.Lookup(key)
	return v
}

// MarshalJSON writes the object the map it replaces wrote: keys sorted,
// HTML escaped or not as the caller's encoder says.
func (a Annotations) MarshalJSON() ([]byte, error) {
	if a == nil {
		return []byte("null"), nil
	}
	var b bytes.Buffer
	b.WriteByte('{')
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // the caller's encoder escapes again if it is set to
	for i, p := range a {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := enc.Encode(p.Key); err != nil {
			return nil, err
		}
		b.Truncate(b.Len() - 1) // Encode's newline
		b.WriteByte(':')
		if err := enc.Encode(p.Value); err != nil {
			return nil, err
		}
		b.Truncate(b.Len() - 1)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
