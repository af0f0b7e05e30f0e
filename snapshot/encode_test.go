package snapshot

import (
	"bytes"
	"encoding/json"
	"testing"
)

// encodeJSON is v as an encoder writes it, escaping HTML or not and
// indenting by indent ("" for none): the new JSON types are compared with
// the old ones through each way diag writes JSON (json.Marshal escapes
// HTML; diag's reports and snapshots do not, and indent).
func encodeJSON(t testing.TB, v any, escapeHTML bool, indent string) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(escapeHTML)
	enc.SetIndent("", indent)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
