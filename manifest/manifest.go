package manifest

import (
	"encoding/json"
	"fmt"
	"time"
)

// Format and Version identify a diag bundle's manifest.
const (
	Format  = "diag-bundle"
	Version = 1
)

// Collector status values as recorded in the manifest.
const (
	StatusOK          = "ok"
	StatusFailed      = "failed"
	StatusTimeout     = "timeout"
	StatusSkipped     = "skipped"
	StatusUnsupported = "unsupported"
	StatusPartial     = "partial"
)

// Manifest describes a bundle. Only Format, Version and Node are required of
// a reader: people assemble bundles by hand.
type Manifest struct {
	Format      string            `json:"format"`
	Version     int               `json:"version"`
	Node        string            `json:"node"`
	OS          string            `json:"os,omitempty"` // "windows" or "linux"
	Tool        *ToolInfo         `json:"tool,omitempty"`
	Started     *time.Time        `json:"started,omitempty"`
	Finished    *time.Time        `json:"finished,omitempty"`
	Options     map[string]string `json:"options,omitempty"`
	Collectors  []CollectorResult `json:"collectors,omitempty"`
	Files       []FileEntry       `json:"files,omitempty"`
	Description string            `json:"description,omitempty"`
}

// ToolInfo names the program that wrote the bundle.
type ToolInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// CollectorResult is what one collector did.
type CollectorResult struct {
	ID         string   `json:"id"`
	Status     string   `json:"status"`
	Error      string   `json:"error,omitempty"`
	Started    string   `json:"started,omitempty"`
	DurationMS int64    `json:"duration_ms"`
	Files      []string `json:"files,omitempty"`
}

// Redaction records that a kind of secret was removed from a file, and how
// often; never the value.
type Redaction struct {
	Kind  string `json:"kind"`
	Count int    `json:"count"`
}

// FileEntry is the size and checksum of one bundle entry.
type FileEntry struct {
	Path      string      `json:"path"`
	Size      int64       `json:"size"`
	SHA256    string      `json:"sha256"`
	Redacted  []Redaction `json:"redacted,omitempty"`
	Truncated bool        `json:"truncated,omitempty"`
}

// Parse decodes and validates manifest.json.
func Parse(data []byte) (*Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(stripUTF8BOM(data), &m); err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	if m.Format != Format {
		return nil, fmt.Errorf("format is %q, want %q", m.Format, Format)
	}
	if m.Version != Version {
		return nil, fmt.Errorf("bundle format version %d is not supported (this diag reads version %d)", m.Version, Version)
	}
	return &m, nil
}

// File returns the manifest entry for path, if any.
func (m *Manifest) File(path string) (FileEntry, bool) {
	for _, f := range m.Files {
		if f.Path == path {
			return f, true
		}
	}
	return FileEntry{}, false
}

func stripUTF8BOM(b []byte) []byte {
	if len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF {
		return b[3:]
	}
	return b
}
