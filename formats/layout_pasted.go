package formats

import (
	"bytes"
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/wincni/diag/snapshot"
)

// Fields a table row or a record does not show are unknown, not empty: the
// rules that need them must not read "no policies" or "state 0" into a
// missing column.
var (
	networkFields  = []string{"Type", "ManagementIP", "Subnets", "Policies", "Extensions", "DrMacAddress", "Flags", "LayeredOn"}
	endpointFields = []string{"State", "Policies", "DNSServerList", "DNSSuffix", "IsRemoteEndpoint", "MacAddress", "VirtualNetwork", "VirtualNetworkName", "SharedContainers", "GatewayAddress", "PrefixLength"}
)

// hnsCommand recognises the HNS cmdlets in a prompt line and what they list.
var hnsCommand = lazyRegexp(`(?i)\bGet-Hns(Network|Endpoint|PolicyList|Namespace)s?\b`)

// addText reads console text; it returns how many objects it added and
// whether it recognised the text at all (an empty result is recognised and
// adds none). One paste often holds several commands' output (Get-HnsNetwork
// then ipconfig /all), so the HNS objects and the host's adapters and routes
// are each looked for.
func (set *objectSet) addText(text, file string) (int, bool, error) {
	return set.addTextAt(text, file, 0)
}

// addTextAt is addText for the depth-th part of a paste (the text after a
// JSON value is read as console text again).
func (set *objectSet) addTextAt(text, file string, depth int) (int, bool, error) {
	text, how := unquotePaste(text)
	var notes []string
	if how != "" {
		notes = append(notes, how)
	}
	tables := parseFormatTables(text)
	n, ok, err := set.addHNSText(text, tables, file, &notes, depth)
	var jsonErr error
	if errors.Is(err, errCutJSON) {
		// A line starting with '[' or '{' in prose ("[edit] ...") is no
		// JSON: the error stands only when nothing else is read.
		jsonErr, err = err, nil
	}
	if err != nil {
		return 0, false, err
	}
	h, hostOK := set.addHostText(text, tables, file, &notes)
	n += h
	ok = ok || hostOK
	if !ok {
		if objs, diag := ParseHNSDiag(text); diag && len(objs) > 0 && (hnsdiagListing(text) || hnsdiagBlocks(objs, text)) {
			set.hnsdiag = append(set.hnsdiag, objs...)
			set.hnsdiagFile = file
			notes = append(notes, fmt.Sprintf("hnsdiag list: %s, by name and ID; it shows no policies or network types, so the HNS rules need Get-HnsNetwork / Get-HnsEndpoint output to judge", countKinds(objs)))
			n, ok = len(objs), true
		}
	}
	if !ok {
		return 0, false, jsonErr
	}
	for _, note := range notes {
		set.notes = append(set.notes, file+": "+note)
	}
	return n, true, nil
}

// addHNSText reads the HNS objects of console text: Format-List records,
// JSON after a prompt, Format-Table tables, vfpctrl output, or a cmdlet that
// printed nothing.
func (set *objectSet) addHNSText(text string, tables []psTable, file string, notes *[]string, depth int) (int, bool, error) {
	pl := parseFormatListNotes(text)
	if len(pl.objs) > 0 {
		objs, unknown, cut := markNotShown(pl.objs, pl.selected, kindUnknown)
		if n := set.add(objs, file); n > 0 {
			*notes = append(*notes, pl.notes...)
			*notes = append(*notes, cut...)
			if slices.Contains(pl.selected, true) {
				*notes = append(*notes, "the command chose which properties to print (Select / Format-List with names): the other fields are unknown, and the rules that need them cannot judge")
			}
			if unknown > 0 {
				*notes = append(*notes, fmt.Sprintf("%d record(s) cut before they show what they are: ignored", unknown))
			}
			return n, true, nil
		}
	}
	// A command's output followed by JSON (collectlogs network.txt, or a
	// prompt then `| ConvertTo-Json`).
	if js := jsonAfterTable([]byte(text)); js != nil {
		v, err := parseJSON(js)
		if err != nil && depth < maxPasteParts {
			// The JSON, then the next prompt or command: read on.
			if first, _, ferr := firstJSON(bytes.TrimSpace(js)); ferr == nil && first != nil {
				before := set.total()
				if _, aerr := set.addJSONThen(bytes.TrimSpace(js), file, err, depth); aerr == nil {
					return set.total() - before, true, nil
				}
			}
		}
		switch {
		case err == nil:
			return set.add(objects(v), file), true, nil
		case convertToJSON().MatchString(text):
			return 0, false, fmt.Errorf("the JSON from line %d (after the console text) is %w", lineOf(text, string(js)), err)
		default:
			cutErr := fmt.Errorf("%w: the text from line %d is %w", errCutJSON, lineOf(text, string(js)), err)
			if n, ok, err := set.addHNSTables(text, tables, file, notes); ok || err != nil {
				return n, ok, err
			}
			return 0, false, cutErr
		}
	}
	return set.addHNSTables(text, tables, file, notes)
}

// errCutJSON marks JSON that does not parse in console text that did not
// ask for JSON.
var errCutJSON = errors.New("not JSON")

// convertToJSON finds a prompt that asked for JSON.
var convertToJSON = lazyRegexp(`(?im)^PS [^>]*>.*\|\s*ConvertTo-Json`)

// addHNSTables reads Format-Table tables, vfpctrl output, or a cmdlet that
// printed nothing.
func (set *objectSet) addHNSTables(text string, tables []psTable, file string, notes *[]string) (int, bool, error) {
	n, found := 0, false
	for _, t := range tables {
		if t.kind == kindUnknown && (netRoutes(t) != nil || netAdapters(t) != nil) {
			continue // host tables: addHostText
		}
		objs, _, _ := markNotShown(t.rows, nil, t.kind)
		set.hint = t.kind
		k := set.add(objs, file)
		set.hint = kindUnknown
		if k > 0 {
			n += k
			found = true
			*notes = append(*notes, fmt.Sprintf("a table of %s: the other fields are unknown, and the rules that need them cannot judge", strings.Join(t.columns, ", ")))
		}
	}
	if found {
		return n, true, nil
	}
	if looksLikeVFP([]byte(text)) {
		ports := ParseVFPDump(text, file, "", set.vfpIndex())
		set.vfpPorts = append(set.vfpPorts, ports...)
		set.counts[kindVFPPort] += len(ports)
		return len(ports), true, nil
	}
	// A prompt with an HNS cmdlet and nothing after it: HNS has none.
	if kinds := emptyResults(text); len(kinds) > 0 {
		for _, k := range kinds {
			set.empty = append(set.empty, k)
			*notes = append(*notes, fmt.Sprintf("%s printed nothing: HNS has no %s objects", k, strings.ToLower(strings.TrimPrefix(k, "Get-Hns"))))
		}
		return 0, true, nil
	}
	return 0, false, nil
}

// addHostText reads the host's adapters and routes: ipconfig, route print,
// Get-NetRoute and Get-NetAdapter tables.
func (set *objectSet) addHostText(text string, tables []psTable, file string, notes *[]string) (int, bool) {
	n, ok := 0, false
	for _, t := range tables {
		if routes := netRoutes(t); routes != nil {
			set.routes = append(set.routes, routes...)
			set.routesFile = file
			n, ok = n+len(routes), true
		}
		if adapters := netAdapters(t); adapters != nil {
			set.adapters = append(set.adapters, adapters...)
			set.adaptersFile = file
			n, ok = n+len(adapters), true
			*notes = append(*notes, "Get-NetAdapter shows no addresses: the rules that match addresses to adapters need ipconfig /all too")
		}
	}
	if strings.Contains(text, "Active Routes:") || strings.Contains(text, "IPv4 Route Table") {
		routes := ParseRoutePrint(text, nil)
		if strings.Contains(text, "Active Routes:") && routePrintCut(text) {
			// A cut table says nothing about the routes it lacks: no
			// rule may read "no route to X" into it.
			*notes = append(*notes, fmt.Sprintf("route print is cut inside its route table: its %d complete route(s) are not used, the table is unknown", len(routes)))
		} else if len(routes) > 0 {
			ApplyRouteInterfaceList(text, set.adapters)
			set.routes = append(set.routes, routes...)
			set.routesFile = file
			n += len(routes)
		}
		ok = true
	}
	if ipconfigText(text) {
		if adapters, host := ParseIPConfig(text); len(adapters) > 0 {
			set.adapters = append(set.adapters, adapters...)
			set.adaptersFile = file
			if host != "" {
				set.hostname = host
			}
			n, ok = n+len(adapters), true
		}
	}
	return n, ok
}

// markNotShown gives each network and endpoint record a hidden value for the
// fields it lacks: for a table, every field not in it; for a Format-List
// record, the network Type (HNS prints it for every type, so a record
// without it was cut). It also counts records that cannot be classified.
func markNotShown(objs []obj, selected []bool, hint objectKind) ([]obj, int, []string) {
	unknown := 0
	var notes []string
	kept := objs[:0]
	for i, o := range objs {
		// A table row, or a list record of chosen properties, shows
		// only some fields.
		keep, unk, _ := markObject(o, i, selected == nil || selected[i], selected != nil, hint, &notes)
		if unk {
			unknown++
		}
		if keep {
			kept = append(kept, o)
		}
	}
	return kept, unknown, notes
}

// markObject is markNotShown's work on the i-th object: table says it shows
// only some fields, listed that it is a Format-List record. It reports
// whether the object is kept and whether it cannot be classified, and the
// kind it classified (what classify says of it after marking too, when
// hint is kindUnknown: the hidden fields it adds are of that kind).
func markObject(o obj, i int, table, listed bool, hint objectKind, notes *[]string) (keep, unknown bool, kind objectKind) {
	k := classify(o)
	if k == kindUnknown && table {
		k = hint
	}
	_, hasID := o.get("ID")
	switch {
	case k == kindNetwork:
		for _, f := range networkFields {
			if _, ok := o.get(f); !ok && (table || f == "Type" || !hasID) {
				o[f] = hidden{hiddenNotShown}
			}
		}
		if _, ok := o.hiddenIn("Type"); ok && listed && !table {
			*notes = append(*notes, fmt.Sprintf("network %s has no Type line (the paste was cut?): its type is unknown", objectLabel(o)))
		}
	case (k == kindEndpoint || k == kindPolicyList) && !table && !hasID:
		// The paste starts inside this record: what it is (local or
		// remote, which address) was above the cut.
		*notes = append(*notes, fmt.Sprintf("record %d has no ID line (the paste starts inside it): ignored", i+1))
		return false, false, k
	case k == kindEndpoint && table:
		for _, f := range endpointFields {
			if _, ok := o.get(f); !ok {
				o[f] = hidden{hiddenNotShown}
			}
		}
	case k == kindUnknown && len(o) > 0:
		return true, true, k
	}
	return true, false, k
}

// objectLabel names an object for a note by its name, else its ID.
func objectLabel(o obj) string {
	if n := o.str("Name"); n != "" {
		return n
	}
	if id := o.str("ID", "Id"); id != "" {
		return id
	}
	return "(name and ID not shown)"
}

// emptyResults returns the HNS cmdlets whose prompt is followed only by
// another prompt or the end of the text.
func emptyResults(text string) []string {
	var out []string
	lines := strings.Split(strings.ReplaceAll(text, "\r", ""), "\n")
	for i, l := range lines {
		m := psPrompt().FindString(l)
		if m == "" {
			continue
		}
		cmd := hnsCommand().FindStringSubmatch(l[len(m):])
		if cmd == nil || !onlyFormatting(l[len(m):]) {
			continue // a filtered listing that is empty says nothing about HNS
		}
		// Empty up to the next prompt: a command typed last, with no
		// prompt after it, may just not have had its output pasted.
		empty, closed := true, false
		for _, next := range lines[i+1:] {
			if psPrompt().MatchString(next) {
				closed = true
				break
			}
			if strings.TrimSpace(next) != "" {
				empty = false
				break
			}
		}
		if empty && closed {
			out = append(out, "Get-Hns"+strings.ToUpper(cmd[1][:1])+cmd[1][1:])
		}
	}
	return out
}

// formatStage matches the pipeline stages that only print what they get.
var formatStage = lazyRegexp(`(?i)^\s*(format-(list|table|wide)|fl|ft|fw|out-\w+|convertto-json)\b`)

// onlyFormatting: every stage after the first only formats (no Where,
// Select, findstr): an empty result then means the cmdlet listed nothing.
func onlyFormatting(cmd string) bool {
	stages := strings.Split(cmd, "|")
	for _, st := range stages[1:] {
		if !formatStage().MatchString(st) {
			return false
		}
	}
	return true
}

// hnsdiagListing: `hnsdiag list` output has its section headings.
func hnsdiagListing(text string) bool {
	for _, l := range strings.Split(text, "\n") {
		if hnsdiagHeader().MatchString(strings.TrimSpace(l)) {
			return true
		}
	}
	return strings.Contains(strings.ToLower(text), "hnsdiag")
}

// ipconfigText: ipconfig prints its banner, or at least adapter headings
// with dotted keys.
func ipconfigText(text string) bool {
	return strings.Contains(text, "Windows IP Configuration") || strings.Contains(text, "Windows-IP-Konfiguration") ||
		strings.Contains(text, ". . . :") || strings.Contains(text, ". :")
}

func countKinds(objs []snapshot.HNSDiagObject) string {
	n := map[string]int{}
	var order []string
	for _, o := range objs {
		if n[o.Kind] == 0 {
			order = append(order, o.Kind)
		}
		n[o.Kind]++
	}
	var parts []string
	for _, k := range order {
		parts = append(parts, fmt.Sprintf("%d %s(s)", n[k], k))
	}
	return strings.Join(parts, ", ")
}

func lineOf(text, tail string) int {
	return strings.Count(text[:len(text)-len(tail)], "\n") + 1
}

// netRoutes reads a Get-NetRoute table (ifIndex, DestinationPrefix,
// NextHop, RouteMetric); nil when the table is not one.
func netRoutes(t psTable) []*snapshot.HostRoute {
	has := map[string]bool{}
	for _, c := range t.columns {
		has[c] = true
	}
	if !has["DestinationPrefix"] || !has["NextHop"] {
		return nil
	}
	out := []*snapshot.HostRoute{}
	for _, row := range t.rows {
		d := snapshot.ParsePrefix(row.str("DestinationPrefix"))
		if !d.IsValid() {
			continue
		}
		r := &snapshot.HostRoute{Destination: d.Masked()}
		if hop := snapshot.ParseAddr(row.str("NextHop")); hop.IsValid() && hop != netip.IPv4Unspecified() && hop != netip.IPv6Unspecified() {
			r.NextHop = hop
		}
		r.IfIndex, _ = strconv.ParseInt(row.str("ifIndex"), 10, 64)
		r.Metric, _ = strconv.ParseInt(row.str("RouteMetric"), 10, 64)
		r.Interface = row.str("InterfaceAlias")
		out = append(out, r)
	}
	return out
}

// netAdapters reads a Get-NetAdapter table (Name, InterfaceDescription,
// ifIndex, Status, MacAddress); nil when the table is not one.
func netAdapters(t psTable) []*snapshot.HostAdapter {
	has := map[string]bool{}
	for _, c := range t.columns {
		has[c] = true
	}
	if !has["InterfaceDescription"] || !has["MacAddress"] || !has["Name"] {
		return nil
	}
	out := []*snapshot.HostAdapter{}
	for _, row := range t.rows {
		a := &snapshot.HostAdapter{Name: row.str("Name"), Description: row.str("InterfaceDescription"), MAC: snapshot.NormalizeMAC(row.str("MacAddress")), Status: row.str("Status")}
		a.IfIndex, _ = strconv.ParseInt(row.str("ifIndex"), 10, 64)
		if _, cut := row.hiddenIn("Name"); cut && a.Name == "" {
			a.Name = "(name cut short in the paste)" // its index, MAC and status are still shown
		}
		if a.Name != "" {
			out = append(out, a)
		}
	}
	return out
}

// routePrintCut: route print closes its IPv4 table with a rule line and
// "Persistent Routes:"; a paste without them was cut inside the table.
func routePrintCut(text string) bool {
	i := strings.Index(text, "Active Routes:")
	rest := text[i:]
	return !strings.Contains(rest, "Persistent Routes:") && !strings.Contains(rest, "IPv6 Route Table") && !strings.Contains(rest[len("Active Routes:"):], "=====")
}
