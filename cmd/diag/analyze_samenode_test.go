package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// A node's bundles before and after a fix, analyzed together, are
// one node at two times: no cross-node finding (XN-01 used to compare winw1
// with itself), one note line, and each finding names its bundle. With the
// Linux control plane added, the cross-node rules still run, on the latest
// bundle of winw1 (the last given: the seed bundles have no times).
func TestAnalyzeSameNodeTwice(t *testing.T) {
	r := runDiag(t, nil, false, "analyze", seedFixed, seedBroken)
	if r.code != 3 || strings.Contains(r.stdout, "XN-") || strings.Count(r.stdout, "note: ") != 1 ||
		!strings.Contains(r.stdout, "note: winw1: 2 bundles of the same node") {
		t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	controlplane := "../../testdata/bundles/seed-linux-controlplane"
	j := runDiag(t, nil, false, "analyze", "-o", "json", seedFixed, seedBroken, controlplane)
	var doc struct {
		Notes    []string                                    `json:"notes"`
		Findings []struct{ ID, Node, Input, Summary string } `json:"findings"`
	}
	if err := json.Unmarshal([]byte(j.stdout), &doc); err != nil {
		t.Fatal(err, j.stderr)
	}
	if len(doc.Notes) != 1 || !strings.Contains(doc.Notes[0], "cross-node rules use the latest ("+seedBroken) {
		t.Errorf("notes: %q", doc.Notes)
	}
	nodes := map[string]string{}
	xn01 := 0
	for _, f := range doc.Findings {
		nodes[f.ID] = f.Node
		if f.ID == "XN-01" {
			xn01++
			if strings.Contains(f.Summary, "address of winw1") {
				t.Errorf("winw1 compared with itself: %s", f.Summary)
			}
		}
	}
	// seed-broken's NAT-address VTEP is controlplane's eth0 address: the
	// real XN-01 of the seed stays; the capture in controlplane's bundle
	// keeps its plain node name.
	if xn01 != 1 || nodes["OVL-01"] != "winw1 (seed-broken)" || nodes["HOST-05"] != "winw1 (seed-fixed)" || nodes["CAP-02"] != "controlplane" {
		t.Errorf("XN-01 %d times, nodes %v", xn01, nodes)
	}
}
