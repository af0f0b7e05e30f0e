package report

import (
	"encoding/json"
	"io"
)

// writeJSON writes the report as one indented JSON object.
func (r *Report) writeJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}
