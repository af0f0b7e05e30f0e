package analyzers

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/wincni/diag/catalog"
	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/snapshot"
)

// Rule is one check of the catalog.
type Rule struct {
	ID       string
	Title    string
	Severity finding.Severity // of the findings it raises, unless an Issue says otherwise
	Needs    []snapshot.Input // inputs without which it is skipped
	Checks   string           // what it checks
	Why      string           // why it matters
	Fix      string           // default remediation
	Sources  []string
	// Upstream is the upstream behaviour the rule is grounded in (the
	// component and its source file); Guards are the false-positive guards
	// its check implements: keep them in step with the code beside them.
	Upstream []string
	Guards   []string
	Check    func(*snapshot.Snapshot) ([]Issue, error)
	// WindowsOnly marks a rule about Windows state that does not need HNS
	// input (OS builds, Windows CNI files): it is not applicable to Linux nodes.
	WindowsOnly bool
	// OnlyFor names the network plugin a rule is about (flannel's rules);
	// it is not applicable to a node known to run another one.
	OnlyFor cniFlavor
	// CheckCluster, set instead of Check, makes a cross-node rule: it runs
	// once on all inputs, when there are two or more.
	CheckCluster func([]*snapshot.Snapshot) ([]Issue, error)
}

// Issue is what a rule's check reports; the engine turns it into a Finding.
type Issue struct {
	Severity    finding.Severity // zero (Skip) means the rule's severity
	Summary     string
	Evidence    []finding.Evidence
	Subjects    []string // see finding.Finding.Subjects
	Remediation string   // empty means the rule's Fix
}

// skipError marks a rule that found its optional inputs missing at run time.
type skipError struct{ reason string }

func (e skipError) Error() string { return e.reason }

// Skip makes a check report its rule as skipped, with the reason.
func Skip(format string, args ...any) error { return skipError{fmt.Sprintf(format, args...)} }

var registry = map[string]*Rule{}

// register adds a rule to the engine and its documentation to the catalog
// (which refuses a second rule with the same ID), naming the file of its
// check: the file that registers it.
func register(r *Rule) {
	var check any = r.Check
	if r.Check == nil {
		check = r.CheckCluster
	}
	catalog.Declare(catalog.Entry{ID: r.ID, Title: r.Title, Severity: r.Severity, Needs: needsWords(r.Needs),
		Checks: r.Checks, Why: r.Why, Fix: r.Fix, Sources: r.Sources, Upstream: r.Upstream, Guards: r.Guards}, check)
	registry[r.ID] = r
}

// needsWords names a rule's inputs as the documentation does.
func needsWords(needs []snapshot.Input) string {
	parts := make([]string, len(needs))
	for i, in := range needs {
		parts[i] = snapshot.InputFiles[in]
	}
	return strings.Join(parts, "; ")
}

// Rules lists every registered rule, in ID order.
func Rules() []*Rule {
	out := make([]*Rule, 0, len(registry))
	for _, r := range registry {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Lookup finds a rule by ID, case-insensitively.
func Lookup(id string) (*Rule, bool) {
	r, ok := registry[strings.ToUpper(id)]
	return r, ok
}

// Selection says which rules to run: IDs or family prefixes ("OVL").
type Selection struct {
	Only []string
	Skip []string
}

// Validate rejects selectors that match no rule, so a typo is not silent.
func (sel Selection) Validate() error {
	for _, s := range append(append([]string{}, sel.Only...), sel.Skip...) {
		if !matchesAny(s) {
			if err := uncheckedError(s); err != nil {
				return err
			}
			return fmt.Errorf("no rule matches %q (see diag rules)", s)
		}
	}
	return nil
}

// matchesAny: a selector names a rule the engine runs or one of the
// catalog's, the capture rules (declared there by the capture package)
// included.
func matchesAny(sel string) bool {
	for id := range registry {
		if selects(sel, id) {
			return true
		}
	}
	for _, e := range catalog.Rules() {
		if selects(sel, e.ID) {
			return true
		}
	}
	return false
}

func selects(sel, id string) bool {
	sel = strings.ToUpper(strings.TrimSpace(sel))
	return sel == id || strings.HasPrefix(id, strings.TrimSuffix(sel, "-")+"-")
}

// Includes reports whether the selection runs the rule with this ID.
func (sel Selection) Includes(id string) bool {
	if len(sel.Only) > 0 {
		found := false
		for _, s := range sel.Only {
			found = found || selects(s, id)
		}
		if !found {
			return false
		}
	}
	for _, s := range sel.Skip {
		if selects(s, id) {
			return false
		}
	}
	return true
}

// Run runs the selected rules on every snapshot. Several bundles of one
// node are times of that node (see nodeLabels): the per-node rules run on
// each and name it, the cross-node rules run on the latest of each node.
func Run(snaps []*snapshot.Snapshot, sel Selection) finding.Result {
	each := make([]finding.Result, len(snaps))
	for i, s := range snaps {
		each[i] = RunNode(s, sel)
	}
	return Combine(snaps, each, sel)
}

// RunNode runs the per-node rules on one snapshot. Its findings and skips
// name no node yet: Combine labels them once every input is known (two
// bundles of one node are told apart by their times). A caller that holds
// many bundles runs this as each is loaded and can then let the snapshot
// go of what only these rules read (snapshot.DropNodeDetail).
func RunNode(s *snapshot.Snapshot, sel Selection) finding.Result {
	var res finding.Result
	for _, r := range Rules() {
		if sel.Includes(r.ID) && r.Check != nil {
			runRule(r, s, "", &res)
		}
	}
	return res
}

// Combine labels the per-node results of RunNode (each[i] is of snaps[i])
// and runs the cross-node rules on the latest bundle of each node.
func Combine(snaps []*snapshot.Snapshot, each []finding.Result, sel Selection) finding.Result {
	var res finding.Result
	labels, latest, notes := nodeLabels(snaps)
	res.Notes = notes
	for i, r := range each {
		for _, f := range r.Findings {
			f.Node = labels[i]
			res.Findings = append(res.Findings, f)
		}
		for _, sk := range r.Skipped {
			sk.Node = labels[i]
			res.Skipped = append(res.Skipped, sk)
		}
		for input, c := range r.Coverage {
			if res.Coverage == nil {
				res.Coverage = map[string]*finding.Coverage{}
			}
			res.Coverage[input] = c
		}
	}
	// Pseudonyms of one key are comparable, not with real addresses or
	// another key's: the cross-node rules run within each such group.
	groups, note := pseudonymGroups(latest)
	if note != "" {
		res.Notes = append(res.Notes, note)
	}
	for _, g := range groups {
		if len(g) < 2 {
			continue
		}
		for _, r := range Rules() {
			if sel.Includes(r.ID) && r.CheckCluster != nil {
				runClusterRule(r, g, &res)
			}
		}
	}
	finding.Sort(res.Findings)
	finding.LinkCauses(res.Findings)
	return res
}

// pseudonymGroups splits snapshots by the key diag bundle anonymize used
// on them ("" for the original), keeping their order, and says so when
// they are not all alike.
func pseudonymGroups(snaps []*snapshot.Snapshot) ([][]*snapshot.Snapshot, string) {
	var keys []string
	byKey := map[string][]*snapshot.Snapshot{}
	for _, s := range snaps {
		k := s.PseudonymKey()
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], s)
	}
	out := make([][]*snapshot.Snapshot, 0, len(keys))
	var desc []string
	for _, k := range keys {
		out = append(out, byKey[k])
		var names []string
		for _, s := range byKey[k] {
			names = append(names, s.NodeName())
		}
		who := "original"
		if k != "" {
			who = "anonymized with key " + k
		}
		desc = append(desc, who+": "+strings.Join(names, ", "))
	}
	if len(keys) < 2 {
		return out, ""
	}
	return out, "warning: the inputs are not alike (" + strings.Join(desc, "; ") + "): pseudonyms are not compared with real addresses or another key's, so the cross-node rules ran within each group only; anonymize every bundle with one --key-file to compare them all"
}

func runRule(r *Rule, s *snapshot.Snapshot, node string, res *finding.Result) {
	cov := res.CoverageFor(s.Source)
	switch notFor, skip := r.appliesTo(s); {
	case notFor != "":
		cov.CountNotApplicable(notFor)
		return
	case skip != "":
		res.Skipped = append(res.Skipped, finding.Skipped{ID: r.ID, Node: node, Input: s.Source, Reason: skip})
		return
	}
	issues, err := safeCall(func() ([]Issue, error) { return r.Check(s) })
	var skip skipError
	if !errors.As(err, &skip) {
		cov.Ran = append(cov.Ran, r.ID)
	}
	record(res, r, node, s.Source, "with the bundle (or the snapshot from `diag snapshot`)", issues, err)
}

func runClusterRule(r *Rule, snaps []*snapshot.Snapshot, res *finding.Result) {
	issues, err := safeCall(func() ([]Issue, error) { return r.CheckCluster(snaps) })
	record(res, r, "cluster", "", "with the bundles", issues, err)
}

// record turns what a rule's check returned into a skip, an error finding
// (the check failed or panicked: a bug in diag, reported with what to send
// along) or its findings.
func record(res *finding.Result, r *Rule, node, input, sendAlong string, issues []Issue, err error) {
	entry := catalog.Entry{ID: r.ID, Title: r.Title, Severity: r.Severity, Fix: r.Fix}
	var skip skipError
	switch {
	case errors.As(err, &skip):
		res.Skipped = append(res.Skipped, finding.Skipped{ID: r.ID, Node: node, Input: input, Reason: skip.reason})
		return
	case err != nil:
		res.Findings = append(res.Findings, entry.Complete(finding.Finding{
			Severity: finding.Error, Node: node, Input: input,
			Summary:     fmt.Sprintf("rule %s could not complete: %v", r.ID, err),
			Remediation: "This is a bug in diag: please report it " + sendAlong + ".",
		}))
		return
	}
	for _, is := range issues {
		res.Findings = append(res.Findings, entry.Complete(finding.Finding{
			Severity: is.Severity, Node: node, Input: input,
			Summary: is.Summary, Evidence: is.Evidence, Subjects: is.Subjects, Remediation: is.Remediation,
		}))
	}
}

// safeCall turns a panicking check (a node's rule or a cluster rule) into
// an error, so the other rules run.
func safeCall(check func() ([]Issue, error)) (issues []Issue, err error) {
	defer func() {
		if p := recover(); p != nil {
			issues, err = nil, fmt.Errorf("panic: %v", p)
		}
	}()
	return check()
}

// appliesTo decides, in one place, whether r runs on s. notFor names why it
// does not apply at all (a Linux node has no HNS, the node runs another
// network plugin): the rule is not counted as skipped. skip is why it
// cannot run here: inputs it needs are missing.
func (r *Rule) appliesTo(s *snapshot.Snapshot) (notFor, skip string) {
	if s.IsLinuxNode() && r.readsWindowsState() {
		return "linux", ""
	}
	if r.OnlyFor != cniUnknown {
		if f := nodeFlavor(s); f != cniUnknown && f != r.OnlyFor {
			return r.OnlyFor.String(), ""
		}
	}
	var missing []string
	for _, in := range r.Needs {
		if !s.Has(in) {
			missing = append(missing, snapshot.InputFiles[in])
		}
	}
	if len(missing) > 0 {
		return "", "no " + strings.Join(missing, ", no ")
	}
	return "", ""
}

// readsWindowsState reports a rule about Windows state: HNS, VFP, the
// Windows Firewall, netsh's port ranges, or marked WindowsOnly.
func (r *Rule) readsWindowsState() bool {
	if r.WindowsOnly {
		return true
	}
	for _, in := range r.Needs {
		switch in {
		case snapshot.InputHNSNetworks, snapshot.InputHNSEndpoints, snapshot.InputHNSLoadBalancers, snapshot.InputHNSNamespaces, snapshot.InputVFP,
			snapshot.InputFirewall, snapshot.InputPortRanges:
			return true
		}
	}
	return false
}
