package analyzers

import (
	"strings"
	"testing"
	"time"

	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/formats/formatstest"
	"github.com/wincni/diag/manifest"
	"github.com/wincni/diag/snapshot"
)

const (
	seedBrokenDir   = "../testdata/bundles/seed-broken"
	seedFixedDir    = "../testdata/bundles/seed-fixed"
	seedLinuxCPDir  = "../testdata/bundles/seed-linux-controlplane"
	sameNodeCluster = "testdata/clusters/xn-same-node"
)

func findingsOf(res finding.Result, id string) []finding.Finding {
	var out []finding.Finding
	for _, f := range res.Findings {
		if f.ID == id {
			out = append(out, f)
		}
	}
	return out
}

func crossFindings(res finding.Result) []finding.Finding {
	var out []finding.Finding
	for _, f := range res.Findings {
		if strings.HasPrefix(f.ID, "XN-") {
			out = append(out, f)
		}
	}
	return out
}

// withManifest gives a loaded snapshot a manifest naming the node and the
// time it was collected.
func withManifest(s *snapshot.Snapshot, node string, started string) *snapshot.Snapshot {
	m := &manifest.Manifest{Format: "diag-bundle", Version: 1, Node: node}
	if started != "" {
		t, err := time.Parse(time.RFC3339, started)
		if err != nil {
			panic(err)
		}
		m.Started = &t
	}
	s.Manifest = m
	if node != "" {
		s.Facts.Name = snapshot.Fact{Value: node, Source: "manifest.json node"}
	}
	return s
}

// A node's before and after: seed-fixed and seed-broken are both winw1. Analyzed together they are one node at two times: no cross-node
// finding (winw1 against itself was two XN-01 fails), one note, and the
// per-node findings name the bundle they come from.
func TestSameNodeTwoBundlesIsNotTwoNodes(t *testing.T) {
	fixed, broken := formatstest.Load(t, seedFixedDir), formatstest.Load(t, seedBrokenDir)
	res := Run([]*snapshot.Snapshot{fixed, broken}, Selection{})
	if xn := crossFindings(res); len(xn) != 0 {
		t.Errorf("cross-node findings on one node's two bundles: %v", summaries(xn))
	}
	if len(res.Notes) != 1 {
		t.Fatalf("notes: %q", res.Notes)
	}
	note := res.Notes[0]
	for _, want := range []string{"winw1: 2 bundles of the same node", seedFixedDir, seedBrokenDir, "no cross-node rules: no other node", "per-node findings are reported per bundle"} {
		if !strings.Contains(note, want) {
			t.Errorf("note lacks %q: %s", want, note)
		}
	}
	if strings.Contains(note, "\n") {
		t.Errorf("note is not one line: %q", note)
	}
	ovl, host := findingsOf(res, "OVL-01"), findingsOf(res, "HOST-05")
	if len(ovl) != 1 || ovl[0].Node != "winw1 (seed-broken)" || ovl[0].Input != seedBrokenDir {
		t.Errorf("OVL-01 does not name the broken bundle: %+v", ovl)
	}
	if len(host) != 1 || host[0].Node != "winw1 (seed-fixed)" || host[0].Input != seedFixedDir {
		t.Errorf("HOST-05 does not name the fixed bundle: %+v", host)
	}
}

// One bundle per node: nothing changes (no note, plain node names).
func TestOneBundlePerNodeHasNoNote(t *testing.T) {
	res := Run([]*snapshot.Snapshot{formatstest.Load(t, seedBrokenDir), formatstest.Load(t, seedLinuxCPDir)}, Selection{})
	if len(res.Notes) != 0 {
		t.Errorf("notes: %q", res.Notes)
	}
	if ovl := findingsOf(res, "OVL-01"); len(ovl) != 1 || ovl[0].Node != "winw1" {
		t.Errorf("OVL-01: %+v", ovl)
	}
	if len(findingsOf(res, "XN-01")) != 1 {
		t.Errorf("XN-01 lost: %v", summaries(res.Findings))
	}
}

// The guard: two different nodes on one VTEP address (Vagrant clones, both
// on the NAT address 10.0.2.15) are two nodes, and XN-01 still fires, also
// when they share a host name (clones of one image) but are named apart:
// both with --hostname-override, or one by its host name and the other
// overridden while the Kubernetes Nodes list both.
func TestTwoNodesSharingAVTEPStillFire(t *testing.T) {
	for _, c := range []struct {
		name         string
		nameA, nameB string
		hostB        string // "" keeps winw1
		kubeNodeB    bool   // the bundles' Kubernetes Nodes list nameB
	}{
		{"different host names", "winw1", "winw2", "winw2", false},
		{"one host name, both overridden", "win-a", "win-b", "", false},
		{"one host name, both Kubernetes Nodes", "winw1", "winw2", "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := withManifest(formatstest.Load(t, seedBrokenDir), c.nameA, "")
			b := withManifest(formatstest.Load(t, seedBrokenDir), c.nameB, "")
			if c.hostB != "" {
				b.OS.Hostname = c.hostB
			}
			if c.kubeNodeB {
				a.KubeNodes = append(a.KubeNodes, &snapshot.KubeNode{Name: c.nameB})
			}
			res := Run([]*snapshot.Snapshot{a, b}, Selection{})
			xn := findingsOf(res, "XN-01")
			if len(xn) != 1 || !strings.Contains(xn[0].Summary, c.nameA+"'s VTEP address 10.0.2.15 is also an address of "+c.nameB+" (its VTEP)") {
				t.Errorf("XN-01: %v", summaries(xn))
			}
			if len(res.Notes) != 0 {
				t.Errorf("two nodes taken as one: %q", res.Notes)
			}
		})
	}
}

// The same host name with a node name on one side only (a collectlogs
// folder named by its file, a bundle named by its manifest) is one node.
func TestSameHostNameIsOneNode(t *testing.T) {
	a := withManifest(formatstest.Load(t, seedBrokenDir), "win-node-1", "")
	b := formatstest.Load(t, seedFixedDir)
	b.Manifest, b.Facts.Name = nil, snapshot.Fact{Value: "WINW1", Source: "host/os.json Hostname"}
	res := Run([]*snapshot.Snapshot{a, b, formatstest.Load(t, seedLinuxCPDir)}, Selection{})
	if len(res.Notes) != 1 || !strings.HasPrefix(res.Notes[0], "win-node-1: 2 bundles of the same node") {
		t.Errorf("notes: %q", res.Notes)
	}
	// The same for one bundle named by its host name and one overridden,
	// when no list of Kubernetes Nodes says they are two.
	a = withManifest(formatstest.Load(t, seedBrokenDir), "winw1", "")
	b = withManifest(formatstest.Load(t, seedFixedDir), "winw1-renamed", "")
	if !sameNode(a, b) {
		t.Error("one host name, one override: not one node")
	}
}

// Several bundles of a node with collection times: the cross-node rules use
// the latest by time, whatever the input order; per-node findings are named
// by time. Through the cluster scenario xn-same-node (before given last).
func TestLatestBundleByCollectionTime(t *testing.T) {
	var snaps []*snapshot.Snapshot
	for _, b := range clusterBundles(t, sameNodeCluster) {
		snaps = append(snaps, formatstest.Load(t, b))
	}
	res := Run(snaps, Selection{})
	if xn := findingsOf(res, "XN-01"); len(xn) != 0 {
		t.Errorf("XN-01 compared winw1's older bundle: %v", summaries(xn))
	}
	want := "WINW1: 2 bundles of the same node (" + sameNodeCluster + "/winw1-after 2026-11-21T09:00Z, " + sameNodeCluster +
		"/winw1-before 2026-11-20T10:00Z); cross-node rules use the latest (" + sameNodeCluster + "/winw1-after, by collection time); per-node findings are reported per bundle"
	want = strings.Replace(want, "WINW1", "winw1", 1) // the node is named as the first bundle given names it
	if len(res.Notes) != 1 || res.Notes[0] != want {
		t.Errorf("notes:\n got %q\nwant %q", res.Notes, want)
	}
	labels := NodeLabels(snaps)
	if labels[0] != "winw1 (2026-11-21 09:00Z)" || labels[1] != "winw1 (2026-11-20 10:00Z)" || labels[2] != "controlplane" {
		t.Errorf("labels: %q", labels)
	}
	for _, f := range res.Findings {
		if f.Input == snaps[1].Source && f.Node != labels[1] {
			t.Errorf("finding of the before bundle named %q: %s", f.Node, f.Summary)
		}
	}

	// Without times, the last given is the latest: the before bundle, whose
	// NAT-address VTEP controlplane also holds.
	for _, s := range snaps[:2] {
		s.Manifest.Started, s.Manifest.Finished = nil, nil
	}
	res = Run(snaps, Selection{})
	if xn := findingsOf(res, "XN-01"); len(xn) != 1 || !strings.Contains(xn[0].Summary, "WINW1's VTEP address 10.0.2.15 is also an address of controlplane") {
		t.Errorf("XN-01 by input order: %v", summaries(xn))
	}
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "by input order") {
		t.Errorf("notes: %q", res.Notes)
	}
}

// A node is never compared with itself, even given twice as the same path.
func TestSameBundleTwice(t *testing.T) {
	res := Run([]*snapshot.Snapshot{formatstest.Load(t, seedBrokenDir), formatstest.Load(t, seedBrokenDir)}, Selection{})
	if xn := crossFindings(res); len(xn) != 0 {
		t.Errorf("cross-node findings: %v", summaries(xn))
	}
	labels := NodeLabels([]*snapshot.Snapshot{formatstest.Load(t, seedBrokenDir), formatstest.Load(t, seedBrokenDir)})
	if labels[0] != "winw1 (bundle 1 of 2)" || labels[1] != "winw1 (bundle 2 of 2)" {
		t.Errorf("labels: %q", labels)
	}
}

// Clones of one image without a manifest node name: the derived node name is
// the shared host name, but kube-proxy runs as different Nodes on each
// (--hostname-override): two nodes, and XN-01 fires.
func TestClonesNamedByKubeProxyAreTwoNodes(t *testing.T) {
	a := withManifest(formatstest.Load(t, seedBrokenDir), "", "")
	b := withManifest(formatstest.Load(t, seedBrokenDir), "", "")
	for i, s := range []*snapshot.Snapshot{a, b} {
		s.OS.Hostname = "WIN-TEMPLATE"
		s.Facts.Name = snapshot.Fact{Value: "WIN-TEMPLATE", Source: "host/os.json hostname"}
		kp := *s.KubeProxy
		kp.Hostname = []string{"winw1", "winw2"}[i]
		s.KubeProxy = &kp
	}
	res := Run([]*snapshot.Snapshot{a, b}, Selection{})
	if len(findingsOf(res, "XN-01")) == 0 || len(res.Notes) != 0 {
		t.Errorf("clones merged: XN-01 %v, notes %q", summaries(findingsOf(res, "XN-01")), res.Notes)
	}
}
