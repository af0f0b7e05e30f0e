package formats

import (
	"errors"
	"net/netip"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wincni/diag/bundle"
	"github.com/wincni/diag/snapshot"
)

// Each fixture under testdata/pastes reproduces one way operators post
// console output (our own text, written to the quirks seen in public issue
// threads).
func loadPaste(t *testing.T, name string) (*snapshot.Snapshot, error) {
	t.Helper()
	b, err := bundle.Open(filepath.Join("testdata", "pastes", name), bundle.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	return Load(b)
}

func mustPaste(t *testing.T, name string) *snapshot.Snapshot {
	t.Helper()
	s, err := loadPaste(t, name)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return s
}

func hasNote(s *snapshot.Snapshot, words ...string) bool {
	for _, n := range s.Notes {
		all := true
		for _, w := range words {
			all = all && strings.Contains(n, w)
		}
		if all {
			return true
		}
	}
	return false
}

func TestPasteMarkdownQuoteAndIndent(t *testing.T) {
	s := mustPaste(t, "quoted-hnsnetwork.txt")
	if len(s.Networks) != 1 || s.Networks[0].Name != "flannel.4096" || s.Networks[0].Type != snapshot.TypeOverlay ||
		s.Networks[0].ManagementIP != netip.MustParseAddr("10.20.30.11") || len(s.Networks[0].Subnets) != 1 {
		t.Fatalf("quoted paste: %+v", s.Networks)
	}
	if !hasNote(s, "Markdown quote") {
		t.Errorf("no note on the quote: %v", s.Notes)
	}
	s = mustPaste(t, "indented-hnsendpoint.txt")
	if len(s.Endpoints) != 1 || s.Endpoints[0].IP != netip.MustParseAddr("10.244.3.17") || s.Endpoints[0].State != 3 {
		t.Fatalf("indented paste: %+v", s.Endpoints)
	}
	if !hasNote(s, "indentation (4 spaces") {
		t.Errorf("no note on the indentation: %v", s.Notes)
	}
}

// Code fences copied along with a paste are not part of it.
func TestPasteCodeFences(t *testing.T) {
	var set objectSet
	set.init()
	n, ok, err := set.addText("```powershell\r\nPS C:\\> Get-HnsNetwork | Select Name, Type\r\n\r\nName   Type\r\n----   ----\r\nnat    nat\r\nCalico Overlay\r\n```\r\n", "p.txt")
	if n != 2 || !ok || err != nil || len(set.networks) != 2 || set.networks[1].Name != "Calico" {
		t.Errorf("fenced table: %d objects, %v %v, networks %+v", n, ok, err, set.networks)
	}
}

func TestPasteHardWrapRejoinsTokens(t *testing.T) {
	s := mustPaste(t, "hardwrap-hnsnetwork.txt")
	if len(s.Networks) != 1 {
		t.Fatalf("%d networks", len(s.Networks))
	}
	n := s.Networks[0]
	var ids, names []string
	for _, e := range n.Extensions {
		ids, names = append(ids, e.ID), append(names, e.Name)
	}
	want := []string{"E7C3B2F0-F3C5-48DF-AF2B-10FED6D72E7A", "E9B59CFA-2BE1-4B21-828F-B6FBDBDDC017"}
	if strings.Join(ids, " ") != strings.Join(want, " ") || names[1] != "Microsoft Azure VFP Switch Extension" || n.Extensions[0].Enabled {
		t.Errorf("extensions split across the wrap: %+v", n.Extensions)
	}
	if !hasNote(s, "80 columns") {
		t.Errorf("no note on the wrap: %v", s.Notes)
	}
}

// Word wrapping (PowerShell's list view) drops a space that must come back.
func TestPasteWordWrapKeepsSpaces(t *testing.T) {
	s := mustPaste(t, "cut-type-hnsnetwork.txt")
	if len(s.Networks) != 1 || len(s.Networks[0].Extensions) != 2 || s.Networks[0].Extensions[0].Name != "Microsoft Windows Filtering Platform" {
		t.Fatalf("word-wrapped extensions: %+v", s.Networks)
	}
}

func TestPasteMissingTypeIsUnknown(t *testing.T) {
	s := mustPaste(t, "cut-type-hnsnetwork.txt")
	n := s.Networks[0]
	if n.Type != snapshot.TypeUnknown || n.Knows("Type") {
		t.Errorf("a record without a Type line is typed %q (knows %v), want unknown", n.Type, n.Knows("Type"))
	}
	if !hasNote(s, "External", "no Type line") {
		t.Errorf("no note on the missing type: %v", s.Notes)
	}
	// The JSON schema omits the type of NAT networks; that stays NAT.
	nets, err := ParseNetworks([]byte(`[{"ID":"AA-1","Name":"nat"}]`), "n.json")
	if err != nil || nets[0].Type != snapshot.TypeNAT {
		t.Errorf("JSON without Type: %v %v", nets, err)
	}
}

func TestPasteCutBraceKeepsWhatIsThere(t *testing.T) {
	s := mustPaste(t, "cut-brace-hnsnetwork.txt")
	n := s.Networks[0]
	if len(n.RemoteSubnetRoutes) != 1 || n.RemoteSubnetRoutes[0].ProviderAddress != netip.MustParseAddr("10.20.30.12") {
		t.Errorf("routes before the cut: %+v", n.RemoteSubnetRoutes)
	}
	if n.Knows("Policies") {
		t.Errorf("a cut Policies value is known: %v", n.Unknown)
	}
	if !hasNote(s, "Policies", "cut off") {
		t.Errorf("no note on the cut: %v", s.Notes)
	}
}

func TestPasteCutPolicyListIsNotAnEndpoint(t *testing.T) {
	s := mustPaste(t, "cut-policylist.txt")
	if len(s.Endpoints) != 0 {
		t.Errorf("policy list records read as endpoints: %+v", s.Endpoints)
	}
	if len(s.LoadBalancers) != 1 || s.LoadBalancers[0].ID != "D680D0E7-185B-46A7-B097-37A8B439F588" {
		t.Errorf("the policy list with IsApplied: %+v", s.LoadBalancers)
	}
	if !hasNote(s, "1 record(s) cut") {
		t.Errorf("no note on the record that says nothing: %v", s.Notes)
	}
}

func TestPastePromptThenTruncatedJSON(t *testing.T) {
	_, err := loadPaste(t, "prompt-truncated-json.txt")
	var pe *ParseError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "JSON from line 2") || !strings.Contains(err.Error(), "unexpected end") {
		t.Errorf("error: %v", err)
	}
}

func TestPasteTables(t *testing.T) {
	s := mustPaste(t, "table-hnsendpoint.txt")
	if len(s.Endpoints) != 4 {
		t.Fatalf("%d endpoints from the table", len(s.Endpoints))
	}
	e := s.Endpoints[0]
	if e.ID != "0C8F2A71-55D3-4E0B-9B1E-3A2F6C7D8E90" || e.IP != netip.MustParseAddr("10.244.1.14") || !e.IsRemote || e.Knows("State") || e.Knows("Policies") {
		t.Errorf("row 1: %+v", e)
	}
	if l := s.Endpoints[2]; l.IsRemote || l.Name != "d1e2f3a4_flannel.4096" {
		t.Errorf("row 3 (local, right-aligned False): %+v", l)
	}
	if l := s.Endpoints[3]; l.Knows("Name") || l.IP != netip.MustParseAddr("10.244.3.22") {
		t.Errorf("row 4 (name cut by the column): %+v", l)
	}
	s = mustPaste(t, "select-hnsnetwork.txt")
	if len(s.Networks) != 2 || s.Networks[0].Name != "nat" || s.Networks[0].Type != snapshot.TypeNAT || s.Networks[1].Type != snapshot.TypeOverlay || s.Networks[1].Knows("Subnets") {
		t.Errorf("Select table after a Get-HnsNetwork prompt: %+v", s.Networks)
	}
}

func TestPasteHostText(t *testing.T) {
	s := mustPaste(t, "ipconfig-plain.txt")
	if len(s.Adapters) != 2 || s.Adapters[0].Name != "vEthernet (Ethernet)" || s.Adapters[0].Addresses[0] != netip.MustParsePrefix("10.20.30.11/24") {
		t.Errorf("plain ipconfig: %+v", s.Adapters)
	}
	s = mustPaste(t, "routeprint.txt")
	if len(s.Routes) != 3 || s.Routes[2].NextHop != netip.MustParseAddr("10.20.30.12") || !s.Has(snapshot.InputHostRoutes) {
		t.Errorf("route print: %+v", s.Routes)
	}
	s = mustPaste(t, "netroute.txt")
	if len(s.Routes) != 4 || s.Routes[2].Destination != netip.MustParsePrefix("10.244.1.0/24") || s.Routes[2].NextHop != netip.MustParseAddr("10.20.30.12") || s.Routes[1].NextHop.IsValid() {
		t.Errorf("Get-NetRoute: %+v", s.Routes)
	}
	s = mustPaste(t, "hnsdiag-list-all.txt")
	if len(s.HNSDiag) != 4 || s.Has(snapshot.InputHNSNetworks) || !hasNote(s, "2 network(s), 2 endpoint(s), by name and ID") {
		t.Errorf("hnsdiag: %+v %v", s.HNSDiag, s.Notes)
	}
}

func TestPasteEmptyResultIsEvidence(t *testing.T) {
	s := mustPaste(t, "empty-hnsnetwork.txt")
	if !s.Has(snapshot.InputHNSNetworks) || len(s.Networks) != 0 || !hasNote(s, "Get-HnsNetwork printed nothing") {
		t.Errorf("empty Get-HnsNetwork: has %v, %d networks, notes %v", s.Has(snapshot.InputHNSNetworks), len(s.Networks), s.Notes)
	}
}

// A prompt with a filtered listing that printed nothing says nothing about
// HNS; text with no prompt and no record is still unidentified.
func TestPasteNotEvidence(t *testing.T) {
	for _, text := range []string{"PS C:\\> Get-HnsEndpoint | ? Name -eq foo\nPS C:\\>\n", "hello\nworld\n"} {
		var set objectSet
		if _, ok, err := set.addText(text, "p.txt"); ok || err != nil {
			t.Errorf("%q recognised (%v)", text, err)
		}
	}
}

// One paste with several commands' output: the HNS objects and the host's
// adapters are both read.
func TestPasteSeveralCommands(t *testing.T) {
	s := mustPaste(t, "network-and-ipconfig.txt")
	if len(s.Networks) != 1 || len(s.Adapters) != 2 || !s.Has(snapshot.InputHostAdapters) || s.AdapterWithAddr(netip.MustParseAddr("10.20.30.11")) == nil {
		t.Errorf("network and ipconfig: %d networks, adapters %+v", len(s.Networks), s.Adapters)
	}
}

// Get-NetAdapter names adapters but shows no addresses: they are kept, but
// the input that rules match addresses against is not marked present.
func TestPasteNetAdapter(t *testing.T) {
	s := mustPaste(t, "netadapter.txt")
	if len(s.Adapters) != 2 || s.Adapters[0].Name != "vEthernet (Ethernet)" || s.Adapters[0].IfIndex != 12 || s.Adapters[0].MAC == "" || s.Has(snapshot.InputHostAdapters) {
		t.Errorf("Get-NetAdapter: %+v (input marked %v)", s.Adapters, s.Has(snapshot.InputHostAdapters))
	}
}

// A paste that starts inside a record and ends inside a key: the headless
// record (local or remote? which address?) is ignored, the cut key is not
// glued onto the value before it.
func TestPasteHeadlessRecordAndCutKey(t *testing.T) {
	s := mustPaste(t, "headless-and-cut-key-hnsendpoint.txt")
	if len(s.Endpoints) != 2 {
		t.Fatalf("%d endpoints, want the two with an ID: %+v", len(s.Endpoints), s.Endpoints)
	}
	if last := s.Endpoints[1]; !last.IsRemote || last.IP != netip.MustParseAddr("10.244.1.7") {
		t.Errorf("the record cut at a key: %+v", last)
	}
	if !hasNote(s, "no ID line") || !hasNote(s, `"MacAddres"`) {
		t.Errorf("notes: %v", s.Notes)
	}
}

// A bare word after a line that filled a fixed-width console is the end of a
// wrapped value, not a cut key.
func TestPasteHardWrapBareWordIsValue(t *testing.T) {
	var set objectSet
	set.init()
	pad := func(k, v string) string { return k + strings.Repeat(" ", 23-len(k)) + ": " + v }
	w := 60
	// Two values wrapped at exactly w columns; the last one's end, "erlay",
	// landed at column 0 as a terminal's wrap leaves it.
	ext := pad("Extensions", "{@{Id=E7C3B2F0-F3C5-48DF-AF2B-10FED6D72E7A; IsEnabled=False}}")
	last := pad("Description", "a long network description, type Overlay")
	lines := []string{pad("ID", "C3C641B1-7AC1-43B2-9824-EEDE9B5A9DF9"), pad("ManagementIP", "10.20.30.12"), pad("Name", "Calico"), ext[:w], strings.Repeat(" ", 25) + ext[w:], last[:w], last[w:]}
	if last[w:] != "erlay" {
		t.Fatalf("fixture: %q", last[w:])
	}
	set.addText(strings.Join(lines, "\n")+"\n", "p.txt")
	if len(set.networks) != 1 {
		t.Fatalf("%d networks", len(set.networks))
	}
	if len(set.notes) > 0 && strings.Contains(strings.Join(set.notes, " "), "middle of a key") {
		t.Errorf("a wrapped value's end taken for a cut key: %v", set.notes)
	}
}

// route print cut inside its table: no route is used (a cut table cannot
// say a route is missing), and a note says why.
func TestPasteRoutePrintCut(t *testing.T) {
	s := mustPaste(t, "routeprint-cut.txt")
	if s.Has(snapshot.InputHostRoutes) || len(s.Routes) != 0 || !hasNote(s, "route print is cut") {
		t.Errorf("cut route print: %d routes, notes %v", len(s.Routes), s.Notes)
	}
}

// What operators put around and into a paste: prose, property
// selections, prompts without output.
func TestPasteWithProse(t *testing.T) {
	s := mustPaste(t, "table-with-prose.txt") // "[edit] ..." after the table is no JSON
	if len(s.Endpoints) != 4 {
		t.Errorf("table with a '[edit]' line: %d endpoints", len(s.Endpoints))
	}
	for _, name := range []string{"quoted-with-prose.txt", "indented-with-prose.txt"} {
		s := mustPaste(t, name)
		if len(s.Networks) != 1 || s.Networks[0].Type != snapshot.TypeOverlay || s.Networks[0].ManagementIP != netip.MustParseAddr("10.20.30.12") {
			t.Errorf("%s: %+v", name, s.Networks)
		}
	}
}

func TestPasteSelectedPropertiesAreUnknownElsewhere(t *testing.T) {
	s := mustPaste(t, "select-list-hnsnetwork.txt")
	if len(s.Networks) != 1 || s.Networks[0].Knows("DrMacAddress") || !s.Networks[0].Knows("Subnets") || !hasNote(s, "chose which properties") {
		t.Errorf("Select of five properties: %+v, notes %v", s.Networks, s.Notes)
	}
	for cmd, want := range map[string]bool{"Get-HnsNetwork | Select Name, ID, Type": true, "Get-HnsNetwork | fl *": false, "Get-HnsNetwork": false, "Get-HnsEndpoint | fl Name,IPAddress": true} {
		if selectsProperties(cmd) != want {
			t.Errorf("selectsProperties(%q) = %v", cmd, !want)
		}
	}
}

func TestPastePromptWithoutOutputIsNoEvidence(t *testing.T) {
	s := mustPaste(t, "ipconfig-then-unanswered-prompt.txt") // the last command's output was not pasted
	if s.Has(snapshot.InputHNSNetworks) || len(s.Adapters) != 2 {
		t.Errorf("a trailing Get-HnsNetwork prompt read as no networks (%v), adapters %d", s.Has(snapshot.InputHNSNetworks), len(s.Adapters))
	}
	if _, err := loadPaste(t, "filtered-empty.txt"); err == nil {
		t.Errorf("an empty filtered listing read as evidence")
	}
}

// Records of one shape word-wrap at the same width: that alone is no
// fixed-width wrap (words stay apart). A single break inside a GUID is
// rejoined without a space.
func TestPasteWrapEvidence(t *testing.T) {
	s := mustPaste(t, "wordwrap-same-shape.txt")
	if hasNote(s, "console wrapping") {
		t.Errorf("same-shaped word wraps taken for a fixed-width wrap: %v", s.Notes)
	}
	s = mustPaste(t, "hardwrap-single-guid.txt")
	if len(s.Networks) != 1 || len(s.Networks[0].Extensions) != 2 || s.Networks[0].Extensions[1].ID != "E9B59CFA-2BE1-4B21-828F-B6FBDBDDC017" {
		t.Errorf("a GUID split by one wrap: %+v", s.Networks)
	}
}

// Columns are counted in console cells: an accented name does not shift the
// columns after it.
func TestPasteTableNonASCII(t *testing.T) {
	s := mustPaste(t, "netadapter-accents.txt")
	if len(s.Adapters) != 2 || s.Adapters[1].Name != "Connexion réseau épinglée" || s.Adapters[1].IfIndex != 6 || s.Adapters[1].Status != "Up" {
		t.Errorf("accented Get-NetAdapter row: %+v", s.Adapters)
	}
	header := strings.Repeat("a ", maxTableColumns+1)
	if starts, _ := tableHeader(header, strings.ReplaceAll(header, "a", "-")); starts != nil {
		t.Errorf("a header of %d columns taken for a table", maxTableColumns+1)
	}
}

// A JSON value ends where it ends: what a terminal copy has after it (the
// next prompt, a second command and its JSON, prose after a fence,
// ipconfig's text) is read as the next part, not a syntax error.
func TestPasteJSONThenMore(t *testing.T) {
	for name, want := range map[string]struct{ networks, endpoints, adapters int }{
		"json-then-prompt.txt":         {1, 0, 0},
		"json-then-second-command.txt": {1, 1, 0},
		"json-fence-then-prose.txt":    {1, 0, 0},
		"json-then-ipconfig.txt":       {1, 0, 1},
	} {
		s := mustPaste(t, name)
		if len(s.Networks) != want.networks || len(s.Endpoints) != want.endpoints || len(s.Adapters) != want.adapters {
			t.Errorf("%s: %d networks, %d endpoints, %d adapters; want %+v", name, len(s.Networks), len(s.Endpoints), len(s.Adapters), want)
		}
	}
}

// hnsdiag list's object blocks without the command line, indented in a
// Markdown list: the layout says what they are.
func TestPasteBareHNSDiagBlocks(t *testing.T) {
	s := mustPaste(t, "hnsdiag-blocks-in-list.txt")
	if len(s.HNSDiag) != 2 || s.HNSDiag[0].Kind != "loadbalancer" || !strings.EqualFold(s.HNSDiag[1].ID, "8e4f2031-ab5c-4d7e-9f30-1b2c3d4e5f60") {
		t.Errorf("%+v", s.HNSDiag)
	}
}

// A list PowerShell cut short, or printed as System.Object[], is named in
// the read: notes the default report shows: the rules judged only what
// was shown.
func TestPasteCutValuesAreSaid(t *testing.T) {
	for _, name := range []string{"../../../testdata/text/flannel-get-hnsnetwork-truncated.txt"} {
		s := mustPaste(t, name)
		if !hasNote(s, "not shown whole", "cut the list short", "ConvertTo-Json -Depth 10") {
			t.Errorf("%s: notes %q", name, s.Notes)
		}
	}
	// A paste showing every value whole says nothing of the kind.
	if s := mustPaste(t, "json-then-prompt.txt"); hasNote(s, "not shown whole") {
		t.Errorf("notes %q", s.Notes)
	}
}
