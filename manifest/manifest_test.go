package manifest

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		name, in, err string
	}{
		{"minimal", `{"format":"diag-bundle","version":1,"node":"win-1"}`, ""},
		{"byte order mark", "\ufeff" + `{"format":"diag-bundle","version":1,"node":"win-1"}`, ""},
		{"another format", `{"format":"sos","version":1,"node":"n"}`, `format is "sos"`},
		{"a later version", `{"format":"diag-bundle","version":2,"node":"n"}`, "version 2 is not supported"},
		{"not JSON", `node: win-1`, "invalid JSON"},
		{"a JSON array", `[]`, "invalid JSON"},
	} {
		m, err := Parse([]byte(c.in))
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.err == "" && m.Node != "win-1":
			t.Errorf("%s: node %q, want win-1", c.name, m.Node)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.err)
		}
	}
}

func TestFile(t *testing.T) {
	m := &Manifest{Files: []FileEntry{{Path: "hns/networks.json", Size: 10}, {Path: "host/ipconfig.txt", Size: 3}}}
	if f, ok := m.File("host/ipconfig.txt"); !ok || f.Size != 3 {
		t.Errorf("File(host/ipconfig.txt) = %+v, %v", f, ok)
	}
	if _, ok := m.File("hns/endpoints.json"); ok {
		t.Error("File found an entry the manifest does not list")
	}
}

// FuzzParse: any input is either refused with an error or gives a manifest
// of this format and version that encodes back to JSON.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"format":"diag-bundle","version":1,"node":"win-1","collectors":[{"id":"hns","status":"ok","duration_ms":3}],"files":[{"path":"a","size":1,"sha256":"00","redacted":[{"kind":"password","count":2}]}]}`))
	f.Add([]byte("\ufeff{}"))
	f.Add([]byte(`{"format":"diag-bundle","version":1e400}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse(data)
		if err != nil {
			return
		}
		if m.Format != Format || m.Version != Version {
			t.Fatalf("accepted format %q version %d", m.Format, m.Version)
		}
		if _, err := json.Marshal(m); err != nil {
			t.Fatalf("an accepted manifest does not encode: %v", err)
		}
	})
}
