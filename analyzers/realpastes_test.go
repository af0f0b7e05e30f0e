package analyzers

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/wincni/diag/bundle"
	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/formats"
	"github.com/wincni/diag/snapshot"
)

// realPastes is console output operators posted in public issue threads,
// beside the project in CI (../shared/real-pastes), with what each thread
// concluded: the rules a correct tool reports from the paste alone (expect),
// the false alarms (forbid), whether nothing may warn or fail (healthy), and
// whether refusing it is right (unreadable_ok: not HNS output).
const realPastes = "../../shared/real-pastes"

type pasteCase struct {
	Case         string   `json:"case"`
	Expect       []string `json:"expect"`
	Forbid       []string `json:"forbid"`
	Healthy      bool     `json:"healthy"`
	UnreadableOK bool     `json:"unreadable_ok"`
}

func TestRealPastes(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(realPastes, "index.json"))
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("no %s beside the project (a plain clone has none): real pastes not checked", realPastes)
	}
	if err != nil {
		t.Fatal(err)
	}
	var cases []pasteCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Case, func(t *testing.T) {
			path := filepath.Join(realPastes, c.Case, "paste.txt")
			b, err := bundle.Open(path, bundle.DefaultLimits)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			s, err := formats.Load(b)
			if err != nil {
				if !c.UnreadableOK {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			res := Run([]*snapshot.Snapshot{s}, Selection{})
			var alarms, all []string
			for _, f := range res.Findings {
				all = append(all, f.ID)
				if f.Severity >= finding.Warn {
					alarms = append(alarms, f.ID+" "+f.Severity.String()+": "+f.Summary)
				}
			}
			for _, id := range c.Expect {
				if !slices.ContainsFunc(res.Findings, func(f finding.Finding) bool { return f.ID == id && f.Severity >= finding.Warn }) {
					t.Errorf("%s expected at warn or fail; got %v", id, alarms)
				}
			}
			for _, id := range c.Forbid {
				if slices.Contains(all, id) {
					t.Errorf("%s is a false alarm here; got %v", id, alarms)
				}
			}
			if c.Healthy && len(alarms) > 0 {
				t.Errorf("healthy, but: %v", alarms)
			}
		})
	}
}
