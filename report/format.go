package report

import (
	"fmt"
	"io"
	"strings"
)

// Format is how a report is written: -o of every command that reports.
type Format string

// The formats every report kind has.
const (
	Table    Format = "table"
	Markdown Format = "markdown"
	JSON     Format = "json"
	HTML     Format = "html"
)

// Formats lists them in the order the help names them.
var Formats = []Format{Table, Markdown, JSON, HTML}

// FormatNames is Formats as words, for flags' help and completion.
func FormatNames() []string {
	out := make([]string, len(Formats))
	for i, f := range Formats {
		out[i] = string(f)
	}
	return out
}

// ParseFormat reads -o's word (already in lower case).
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	return "", fmt.Errorf("must be one of %s, not %q", strings.Join(FormatNames(), ", "), s)
}

// Document is a report of one kind (analyze, diff, capture) that can be
// written in every Format.
type Document interface {
	writeTable(w io.Writer, opts TableOptions) error
	writeMarkdown(w io.Writer) error
	writeJSON(w io.Writer) error
	writeHTML(w io.Writer) error
}

// Render writes d in format f; opts matter to the table only.
func Render(w io.Writer, d Document, f Format, opts TableOptions) error {
	switch f {
	case Markdown:
		return d.writeMarkdown(w)
	case JSON:
		return d.writeJSON(w)
	case HTML:
		return d.writeHTML(w)
	case Table:
		return d.writeTable(w, opts)
	}
	return fmt.Errorf("report format %q", f)
}
