package analyzers

import (
	"sort"
	"strings"
	"testing"

	"github.com/wincni/diag/capture"
)

// TestGroundingEveryRule: every rule diag documents (the registry's and the
// capture rules) says what upstream behaviour it is grounded in and which
// false-positive guards it has; no grounding names a rule that does not
// exist.
func TestGroundingEveryRule(t *testing.T) {
	known := map[string]bool{}
	for _, r := range Rules() {
		known[r.ID] = true
		checkGrounding(t, r.ID, r.Grounding())
	}
	for _, r := range capture.Rules {
		known[r.ID] = true
		g, ok := GroundingFor(r.ID)
		if !ok {
			t.Errorf("capture rule %s has no grounding", r.ID)
			continue
		}
		checkGrounding(t, r.ID, g)
	}
	var unknown []string
	for id := range groundings {
		if !known[id] {
			unknown = append(unknown, id)
		}
	}
	sort.Strings(unknown)
	if len(unknown) > 0 {
		t.Errorf("groundings for rules that do not exist: %s", strings.Join(unknown, ", "))
	}
}

func checkGrounding(t *testing.T, id string, g Grounding) {
	t.Helper()
	if len(g.Upstream) == 0 {
		t.Errorf("%s: no Upstream entry (component and file the rule is grounded in)", id)
	}
	if len(g.Guards) == 0 {
		t.Errorf("%s: no Guards entry (false-positive guards)", id)
	}
	for _, s := range append(append([]string{}, g.Upstream...), g.Guards...) {
		if strings.TrimSpace(s) == "" || strings.Contains(s, "\n") {
			t.Errorf("%s: empty or multi-line grounding entry %q", id, s)
		}
	}
}

// TestGroundingLookup: the accessor and GroundingFor agree, and an unknown
// ID has none.
func TestGroundingLookup(t *testing.T) {
	r, ok := Lookup("OVL-01")
	if !ok {
		t.Fatal("no OVL-01")
	}
	g, found := GroundingFor("OVL-01")
	if !found || len(g.Guards) != len(r.Grounding().Guards) {
		t.Errorf("GroundingFor(OVL-01) = %v, %v; want the rule's grounding", g, found)
	}
	if _, found := GroundingFor("NOPE-99"); found {
		t.Error("GroundingFor(NOPE-99) found a grounding")
	}
}
