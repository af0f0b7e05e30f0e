package analyzers

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/formats/formatstest"
	"github.com/wincni/diag/snapshot"
)

// Running the per-node rules as each input is loaded, dropping the
// snapshot's per-node detail, and combining (what diag analyze does with
// several inputs) gives the same result as Run on whole snapshots: the
// cross-node rules need nothing that DropNodeDetail lets go.
func TestCombineAfterDropMatchesRun(t *testing.T) {
	var dirs []string
	for _, name := range []string{"seed-broken", "seed-fixed", "seed-linux-controlplane"} {
		dirs = append(dirs, filepath.Join("..", "testdata", "bundles", name))
	}
	scen, _ := filepath.Glob(filepath.Join("testdata", "scenarios", "*"))
	for _, d := range scen {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			dirs = append(dirs, d)
		}
	}
	load := func() []*snapshot.Snapshot {
		var out []*snapshot.Snapshot
		for _, d := range dirs {
			out = append(out, formatstest.Load(t, d))
		}
		return out
	}
	want := Run(load(), Selection{})
	snaps := load()
	each := make([]finding.Result, len(snaps))
	for i, s := range snaps {
		each[i] = RunNode(s, Selection{})
		s.DropNodeDetail()
	}
	got := Combine(snaps, each, Selection{})
	wj, _ := json.Marshal(want)
	gj, _ := json.Marshal(got)
	if string(wj) != string(gj) {
		t.Errorf("%d inputs: Combine after DropNodeDetail differs from Run (%d vs %d findings, %d vs %d skipped)",
			len(dirs), len(got.Findings), len(want.Findings), len(got.Skipped), len(want.Skipped))
	}
	if len(want.Findings) == 0 {
		t.Fatal("no findings at all: the comparison says nothing")
	}
}
