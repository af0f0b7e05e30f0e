package redact

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A plantedCase is one file of a planted folder under testdata: the
// secrets planted in it (none may be left) and the look-alikes around them
// (each must stay).
type plantedCase struct {
	file          string
	secrets, keep []string
}

// checkPlanted redacts every case of testdata/<dir> in every encoding as
// diag collect and diag bundle redact do (File) and reports each secret
// left, each look-alike lost and each file refused.
func checkPlanted(t *testing.T, dir string, cases []plantedCase) {
	t.Helper()
	for _, c := range cases {
		data, err := os.ReadFile(filepath.Join("testdata", dir, c.file))
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		for _, s := range c.secrets {
			if !strings.Contains(text, s) {
				t.Fatalf("%s: the fixture lacks its planted %q", c.file, s)
			}
		}
		for _, k := range c.keep {
			if !strings.Contains(text, k) {
				t.Fatalf("%s: the fixture lacks its look-alike %q", c.file, k)
			}
		}
		for name, enc := range encodings {
			out, _, err := File(enc(text))
			if errors.Is(err, ErrBinary) {
				t.Errorf("%s (%s): refused as binary: a text file left out", c.file, name)
				continue
			}
			if err != nil {
				t.Fatalf("%s (%s): %v", c.file, name, err)
			}
			out = bytes.ReplaceAll(out, []byte("\r\n"), []byte("\n"))
			for _, s := range c.secrets {
				if bytes.Contains(out, []byte(s)) {
					t.Errorf("%s (%s): secret %q left", c.file, name, s)
				}
			}
			for _, k := range c.keep {
				if !bytes.Contains(out, []byte(k)) {
					t.Errorf("%s (%s): look-alike %q lost", c.file, name, k)
				}
			}
		}
	}
}
