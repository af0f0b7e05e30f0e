package snapshot

import (
	"bytes"
	"encoding/json"
)

// VFPConditions are a rule's match conditions ("Destination IP",
// "Protocols", ...), each key once, in the order vfpctrl printed them. A
// list, not a map: a rule has one to a few, and a port of a large
// cluster's node has thousands of rules, where a map each was most of
// the VFP state's memory.
type VFPConditions []VFPCondition

// VFPCondition is one condition of a rule.
type VFPCondition struct{ Key, Value string }

// Get returns the value of key, or "".
func (c VFPConditions) Get(key string) string {
	for _, kv := range c {
		if kv.Key == key {
			return kv.Value
		}
	}
	return ""
}

// Set gives key its value, in its place when it is there already.
func (c *VFPConditions) Set(key, value string) {
	for i := range *c {
		if (*c)[i].Key == key {
			(*c)[i].Value = value
			return
		}
	}
	*c = append(*c, VFPCondition{key, value})
}

// MarshalJSON writes the conditions as the object (keys sorted) they
// are in every snapshot.
func (c VFPConditions) MarshalJSON() ([]byte, error) {
	m := make(map[string]string, len(c))
	for _, kv := range c {
		m[kv.Key] = kv.Value
	}
	// The caller's encoder escapes HTML or not, as it does for the rest.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
