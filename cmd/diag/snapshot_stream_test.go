package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"
)

// diag snapshot streams the model (Snapshot.WriteJSON); on every input in
// testdata the document is the one a single encoder writes.
func TestSnapshotStreamsTheEncodersDocument(t *testing.T) {
	var inputs []string
	for _, g := range []string{"bundles/*", "collectlogs/*", "text/*", "../analyzers/testdata/scenarios/*"} {
		m, err := filepath.Glob(filepath.Join("../../testdata", g))
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, m...)
	}
	if len(inputs) < 50 {
		t.Fatalf("only %d inputs found", len(inputs))
	}
	for _, in := range inputs {
		s, err := loadBundle(in, nil)
		if err != nil {
			continue // refused inputs have their own tests
		}
		var streamed, whole bytes.Buffer
		if err := s.WriteJSON(&streamed); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		enc := json.NewEncoder(&whole)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(streamed.Bytes(), whole.Bytes()) {
			t.Errorf("%s: the streamed snapshot differs from the encoder's", in)
		}
	}
}
