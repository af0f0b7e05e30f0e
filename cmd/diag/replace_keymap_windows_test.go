package main

import (
	"os"
	"path/filepath"
	"testing"
)

// bundle anonymize --force when the previous run's key or map is open in
// another program (an editor): the command says so and exits
// 2, as for a held output zip, and what it leaves on disk belongs
// together: never a new bundle beside the old run's map (its pseudonyms
// are another key's), never the bundle removed with nothing in its place.
func TestAnonymizeKeyOrMapHeldOpen(t *testing.T) {
	for _, held := range []string{".key", ".map.json"} {
		t.Run(held, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "ticket.zip")
			args := []string{"bundle", "anonymize", seedBroken, "--output-file", out, "--write-map"}
			if r := runDiag(t, nil, false, args...); r.code != 0 {
				t.Fatalf("first anonymize: exit %d: %s", r.code, r.stderr)
			}
			oldZip, _ := os.ReadFile(out)
			oldMap, _ := os.ReadFile(out + ".map.json")
			f, err := os.Open(out + held)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			r := runDiag(t, nil, false, append(args, "--force")...)
			if r.code != 2 {
				t.Errorf("exit %d, stderr %q; want exit 2", r.code, r.stderr)
			}
			newZip, err := os.ReadFile(out)
			if err != nil {
				t.Fatalf("%s is gone: %v (stderr %q)", out, err, r.stderr)
			}
			newMap, _ := os.ReadFile(out + ".map.json")
			if string(newZip) != string(oldZip) && string(newMap) == string(oldMap) {
				t.Errorf("%s was replaced but %s.map.json is the previous run's (another key's pseudonyms)", out, out)
			}
		})
	}
}
