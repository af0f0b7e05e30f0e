package report

import (
	"bytes"
	goldenfile "github.com/wincni/diag/golden"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wincni/diag/analyzers"
	"github.com/wincni/diag/bundle"
	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/formats"
	"github.com/wincni/diag/formats/formatstest"
	"github.com/wincni/diag/snapshot"
)

var codeSpan = regexp.MustCompile("`+[^`]*`+")

func buildReport(t testing.TB, names ...string) *Report {
	t.Helper()
	var snaps []*snapshot.Snapshot
	for _, name := range names {
		dir := filepath.Join("..", "testdata", "bundles", name)
		if strings.Contains(name, "/") {
			dir = filepath.FromSlash(name)
		}
		s := formatstest.Load(t, dir)
		s.Source = filepath.Base(name) // stable across machines
		snaps = append(snaps, s)
	}
	now := time.Date(2026, 11, 22, 5, 0, 0, 0, time.UTC)
	return Build(Tool{Name: "diag", Version: "test"}, &now, snaps, analyzers.Run(snaps, analyzers.Selection{}))
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenfile.Check(t, filepath.Join("testdata", name), got)
}

// The golden cases: the seed's broken node, the same cluster with its Linux
// node (Windows and Linux bundles together), and a healthy node.
var goldenCases = []struct {
	name   string
	inputs []string
}{
	{"seed-broken", []string{"seed-broken"}},
	{"cluster", []string{"seed-broken", "seed-linux-controlplane"}},
	{"healthy", []string{"../analyzers/testdata/scenarios/calico-healthy"}},
}

func render(t *testing.T, r *Report, format string) []byte {
	var buf bytes.Buffer
	var err error
	switch format {
	case "table":
		err = Render(&buf, r, Table, TableOptions{Width: 100})
	case "md":
		err = Render(&buf, r, Markdown, TableOptions{})
	case "json":
		err = Render(&buf, r, JSON, TableOptions{})
	case "html":
		err = Render(&buf, r, HTML, TableOptions{})
	}
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestGolden(t *testing.T) {
	for _, c := range goldenCases {
		r := buildReport(t, c.inputs...)
		for _, format := range []string{"table", "md", "json", "html"} {
			golden(t, c.name+"."+format, render(t, r, format))
		}
	}
}

func TestTableColourAndWidth(t *testing.T) {
	r := buildReport(t, "seed-broken")
	var plain, coloured bytes.Buffer
	Render(&plain, r, Table, TableOptions{Width: 80})
	Render(&coloured, r, Table, TableOptions{Width: 80, Color: true})
	if strings.Contains(plain.String(), "\x1b[") || !strings.Contains(coloured.String(), "\x1b[") {
		t.Error("colour option not honoured")
	}
	for _, line := range strings.Split(plain.String(), "\n") {
		if n := len([]rune(line)); n > 80 {
			t.Errorf("line of %d columns at width 80: %q", n, line)
		}
	}
}

func TestClusterFindingsAreShown(t *testing.T) {
	r := &Report{Inputs: []Input{{Node: "a", Path: "a.zip"}}, Findings: []finding.Finding{
		{ID: "XN-01", Severity: finding.Fail, Summary: "two nodes share ManagementIP 10.0.2.15", Evidence: []finding.Evidence{}},
	}}
	var out bytes.Buffer
	Render(&out, r, Table, TableOptions{})
	if !strings.Contains(out.String(), "cluster") || !strings.Contains(out.String(), "XN-01") {
		t.Errorf("cluster finding missing:\n%s", out.String())
	}
}

func TestOverlayPicture(t *testing.T) {
	r := buildReport(t, "seed-broken", "seed-linux-controlplane")
	o := r.picture()
	if o == nil || len(o.Nodes) != 2 || len(o.Tunnels) != 2 {
		t.Fatalf("overlay: %+v", o)
	}
	win, lin := o.Nodes[0], o.Nodes[1]
	if !win.VTEPBroken || win.VTEP != "10.0.2.15" || lin.VTEPBroken || lin.VTEP != "10.20.30.10" {
		t.Errorf("nodes: %+v %+v", win, lin)
	}
	for _, tun := range o.Tunnels {
		switch tun.From {
		case win.Key: // Windows → Linux: the route is right
			if tun.Status != TunnelOK || tun.Via != "10.20.30.10" || tun.To != lin.Key {
				t.Errorf("windows tunnel: %+v", tun)
			}
		case lin.Key: // Linux → Windows: FDB to the NAT address
			if tun.Status != TunnelBroken || tun.Via != "10.0.2.15" || tun.To != win.Key {
				t.Errorf("linux tunnel: %+v", tun)
			}
		}
	}
	// One bundle alone: the peer comes from the Kubernetes Nodes.
	single := buildReport(t, "seed-broken").picture()
	if len(single.Nodes) != 2 || single.Nodes[1].Name != "controlplane" || single.Nodes[1].InInput {
		t.Errorf("single: %+v", single.Nodes)
	}
}

func TestMissingRouteIsDrawn(t *testing.T) {
	b, _ := bundle.Open("../analyzers/testdata/scenarios/ovl02-flannel-missing", bundle.DefaultLimits)
	s, err := formats.Load(b)
	if err != nil {
		t.Fatal(err)
	}
	r := Build(Tool{Name: "diag"}, nil, []*snapshot.Snapshot{s}, analyzers.Run([]*snapshot.Snapshot{s}, analyzers.Selection{}))
	missing := 0
	for _, tun := range r.picture().Tunnels {
		if tun.Status == TunnelMissing {
			missing++
			if !strings.HasSuffix(tun.To, "win-2") {
				t.Errorf("missing tunnel to %s", tun.To)
			}
		}
	}
	if missing != 1 {
		t.Errorf("%d missing tunnels: %+v", missing, r.picture().Tunnels)
	}
}

// Everything from the inputs is escaped: a network named <script> shows as
// text in HTML and Markdown.
func TestHostileNamesAreEscaped(t *testing.T) {
	r := buildReport(t, "seed-broken")
	evil := `<script>alert(1)</script>|*x*`
	r.Inputs[0].Node = evil
	r.Findings[0].Node = evil
	r.Findings[0].Summary = "network " + evil + " is broken"
	r.Findings[0].Evidence[0].Value = evil
	r.picture().Nodes[0].Name = evil
	html := string(render(t, r, "html"))
	if strings.Contains(html, "<script>alert") {
		t.Error("HTML report contains the raw <script>")
	}
	if !strings.Contains(html, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("HTML report does not show the name as text")
	}
	md := string(render(t, r, "md"))
	// Inside code spans GitHub shows HTML as text; anywhere else it must be
	// escaped.
	if outside := codeSpan.ReplaceAllString(md, ""); strings.Contains(outside, "<script>") {
		t.Error("Markdown report contains a raw <script> outside code spans")
	}
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "| ") && strings.Contains(line, "alert(1)") {
			cells := strings.Count(strings.ReplaceAll(line, `\|`, ""), "|")
			header := 5 // "| a | b | c | d |"
			if strings.Count(line, "|") > 20 || cells != header && cells != 7 {
				t.Errorf("a pipe in a name split a table row: %s", line)
			}
		}
	}
}

func TestWorst(t *testing.T) {
	r := buildReport(t, "seed-broken")
	if r.Worst() != finding.Fail || r.Summary.Fail != 1 {
		t.Errorf("worst %v summary %+v", r.Worst(), r.Summary)
	}
}

// Longer rule IDs (HOST-04, SVC-06) must show whole and keep the width.
func TestTableLongRuleIDs(t *testing.T) {
	r := &Report{Inputs: []Input{{Node: "a", Path: "a.zip"}}, Findings: []finding.Finding{
		{ID: "HOST-04", Severity: finding.Fail, Input: "a.zip", Node: "a", Summary: "kube-proxy runs as node \"win-x\" but this host is Node \"winw1\""},
		{ID: "OVL-01", Severity: finding.Fail, Input: "a.zip", Node: "a", Summary: "ManagementIP on the NAT adapter"},
	}}
	var out bytes.Buffer
	Render(&out, r, Table, TableOptions{Width: 80})
	if !strings.Contains(out.String(), "| HOST-04 |") {
		t.Errorf("rule ID cut:\n%s", out.String())
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if n := len([]rune(line)); n > 80 {
			t.Errorf("line of %d columns at width 80: %q", n, line)
		}
	}
}
