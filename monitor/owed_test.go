package monitor

import (
	"fmt"
	"testing"

	"github.com/wincni/diag/finding"
)

// A finding resolved before its appearance was told is not told at all;
// one back before its resolution was told leaves the Event on the Node
// (appeared) standing.
func TestOwedEventsCancel(t *testing.T) {
	f := finding.Finding{ID: "OVL-02", Severity: finding.Fail, Summary: "s", Subjects: []string{"network:flannel.4096"}}
	var o owedEvents
	o.add(ReasonAppeared, []finding.Finding{f}, "b.zip")
	o.add(ReasonResolved, []finding.Finding{f}, "")
	if o.len() != 0 {
		t.Errorf("appeared then resolved, neither told: %d owed, want 0", o.len())
	}
	o.add(ReasonResolved, []finding.Finding{f}, "")
	o.add(ReasonAppeared, []finding.Finding{f}, "")
	if o.len() != 0 {
		t.Errorf("resolved then back, neither told: %d owed, want 0", o.len())
	}
	o.add(ReasonAppeared, []finding.Finding{f}, "b.zip")
	if got := o.worstFirst(); len(got) != 1 || got[0].recorded != "b.zip" || got[0].reason != ReasonAppeared {
		t.Errorf("owed %+v, want OVL-02 appeared with its bundle", got)
	}
}

// Past maxOwedEvents the mildest are given up, the fails kept.
func TestOwedEventsBounded(t *testing.T) {
	var o owedEvents
	var fs []finding.Finding
	for i := range maxOwedEvents {
		fs = append(fs, finding.Finding{ID: "FLN-01", Severity: finding.Info, Summary: "s", Subjects: []string{fmt.Sprintf("pod:p%d", i)}})
	}
	if d := o.add(ReasonAppeared, fs, ""); d != 0 {
		t.Fatalf("%d dropped at the bound", d)
	}
	fail := finding.Finding{ID: "OVL-01", Severity: finding.Fail, Summary: "s"}
	if d := o.add(ReasonAppeared, []finding.Finding{fail}, ""); d != 1 {
		t.Errorf("%d dropped one past the bound, want 1", d)
	}
	all := o.worstFirst()
	if len(all) != maxOwedEvents || all[0].f.ID != "OVL-01" {
		t.Errorf("%d owed, first %s; want %d, OVL-01 first", len(all), all[0].f.ID, maxOwedEvents)
	}
}
