package cluster

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/wincni/diag/cluster/clustertest"
)

// Nodes named like Windows' devices (valid Kubernetes names): each bundle
// is written under a name Windows keeps as a file (con_.zip, not con.zip,
// which Windows opens as the console) and no .part is left behind. Under
// Wine this is the write on Windows.
func TestCollectDeviceNamedNodes(t *testing.T) {
	var nodes []clustertest.Node
	for _, n := range []string{"con", "nul", "aux", "com1", "prn", "lpt1"} {
		nodes = append(nodes, clustertest.Node{Name: n, OS: "windows", Behave: clustertest.OK})
	}
	f := newFake(t, nodes...)
	o := options(t, 15*time.Second, 3)
	rep, err := Collect(context.Background(), apiFor(t, f), &Target{Context: "prod", Server: f.Srv.URL}, chooseAll(t, f), o)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range rep.Nodes {
		if n.Status != StatusOK || n.Bundle != n.Name+"_.zip" {
			t.Errorf("%s: %s %q, bundle %q", n.Name, n.Status, n.Reason, n.Bundle)
			continue
		}
		if err := verifyBundle(filepath.Join(o.OutputDir, n.Bundle)); err != nil {
			t.Errorf("%s: %v", n.Bundle, err)
		}
	}
	entries, _ := os.ReadDir(o.OutputDir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	if got := strings.Join(names, " "); got != "aux_.zip cluster.json com1_.zip con_.zip lpt1_.zip nul_.zip prn_.zip" {
		t.Errorf("output directory: %s", got)
	}
}
