package report

import (
	"strings"
	"testing"

	"github.com/wincni/diag/finding"
)

// Names of one node pool differ at their end: a cut label keeps both ends.
func TestFitKeepsBothEnds(t *testing.T) {
	a, b := fitMiddle("aks-winpool-38715122-vmss000000", 20), fitMiddle("aks-winpool-38715122-vmss000001", 20)
	if a == b || len([]rune(a)) != 20 || a[:9] != "aks-winpo" {
		t.Errorf("%q %q", a, b)
	}
	if got := fitMiddle("short", 20); got != "short" {
		t.Errorf("%q", got)
	}
}

// A node box's name line keeps the name's end and its OS.
func TestNameLineKeepsNameEnd(t *testing.T) {
	n := &svgNode{Name: "aks-winpool-38715122-vmss000001", OS: "windows"}
	n.lines()
	if len([]rune(n.NameLine)) > boxNameChars || !strings.HasSuffix(n.NameLine, "0001 (windows)") {
		t.Errorf("%q", n.NameLine)
	}
}

// A rule that found several things in one table numbers its rows, and
// each evidence list names its row.
func TestFindingLabelsNumberRepeats(t *testing.T) {
	got := findingLabels([]finding.Finding{{ID: "XN-03"}, {ID: "OVL-01"}, {ID: "XN-03"}})
	if strings.Join(got, ",") != "XN-03 #1,OVL-01,XN-03 #2" {
		t.Errorf("%q", got)
	}
}
