package report

import (
	"strings"
	"testing"
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
