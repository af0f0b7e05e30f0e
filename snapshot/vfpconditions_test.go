package snapshot

import (
	"bytes"
	"encoding/json"
	"testing"
)

// The conditions are written exactly as the map they replaced: keys
// sorted, HTML escaped or not as the caller's encoder says.
func TestVFPConditionsJSONAsMap(t *testing.T) {
	c := VFPConditions{{"Protocols", "6"}, {"Destination IP", "10.0.0.0-10.0.0.255"}, {"<&>", "a<b>&\u2028"}}
	m := map[string]string{}
	for _, kv := range c {
		m[kv.Key] = kv.Value
	}
	type rule struct {
		C VFPConditions     `json:"c,omitempty"`
		M map[string]string `json:"m,omitempty"`
	}
	for _, escape := range []bool{true, false} {
		var got, want bytes.Buffer
		for buf, r := range map[*bytes.Buffer]rule{&got: {C: c}, &want: {M: m}} {
			enc := json.NewEncoder(buf)
			enc.SetEscapeHTML(escape)
			if err := enc.Encode(r); err != nil {
				t.Fatal(err)
			}
		}
		if g, w := bytes.Replace(got.Bytes(), []byte(`"c"`), []byte(`"m"`), 1), want.Bytes(); !bytes.Equal(g, w) {
			t.Errorf("escape HTML %v: %s, want %s", escape, g, w)
		}
	}
	if empty, _ := json.Marshal(rule{}); string(empty) != "{}" {
		t.Errorf("no conditions: %s", empty)
	}
}

func TestVFPConditionsSet(t *testing.T) {
	var c VFPConditions
	c.Set("Protocols", "6")
	c.Set("Destination IP", "10.0.0.1")
	c.Set("Protocols", "17")
	if len(c) != 2 || c.Get("Protocols") != "17" || c.Get("Destination IP") != "10.0.0.1" || c.Get("Source IP") != "" {
		t.Errorf("conditions %v", c)
	}
}
