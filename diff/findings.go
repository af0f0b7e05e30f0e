package diff

import (
	"sort"
	"strings"

	"github.com/wincni/diag/analyzers"
	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/snapshot"
)

// Findings splits the findings of both sides: new (only after), resolved
// (only before) and persisting (both; the new side's finding is kept, it
// describes the node as it is now).
type Findings struct {
	New        []finding.Finding `json:"new"`
	Resolved   []finding.Finding `json:"resolved"`
	Persisting []finding.Finding `json:"persisting"`
}

// Analyze runs the default rules on each side and splits their findings.
func Analyze(old, new *snapshot.Snapshot) Findings {
	o := analyzers.Run([]*snapshot.Snapshot{old}, analyzers.Selection{})
	n := analyzers.Run([]*snapshot.Snapshot{new}, analyzers.Selection{})
	return SplitFindings(o.Findings, n.Findings)
}

// SplitFindings matches findings across the sides by rule ID and subjects
// (sorted), or rule ID and summary when a finding has no subjects. HNS
// object IDs are left out of the match: an HNS restart gives every network
// and endpoint a new GUID, and the same problem must still read as
// persisting.
func SplitFindings(old, new []finding.Finding) Findings {
	res := Findings{New: []finding.Finding{}, Resolved: []finding.Finding{}, Persisting: []finding.Finding{}}
	before := map[string][]int{} // key → indexes into old, in order
	for i, f := range old {
		k := findingKey(f)
		before[k] = append(before[k], i)
	}
	used := make([]bool, len(old))
	for _, f := range new {
		k := findingKey(f)
		if idx := before[k]; len(idx) > 0 {
			used[idx[0]] = true
			before[k] = idx[1:]
			// The same subject at another severity (info "non-persistent",
			// then fail "missing") is not persistence: the new finding is
			// new, the old one resolved. The words may differ for one state
			// (a bundle says more than a collectlogs folder).
			if o := old[idx[0]]; o.Severity != f.Severity {
				res.New = append(res.New, f)
				res.Resolved = append(res.Resolved, o)
				continue
			}
			res.Persisting = append(res.Persisting, f)
			continue
		}
		res.New = append(res.New, f)
	}
	for i, f := range old {
		if !used[i] {
			res.Resolved = append(res.Resolved, f)
		}
	}
	finding.Sort(res.New)
	finding.Sort(res.Resolved)
	finding.Sort(res.Persisting)
	return res
}

// findingKey is what makes two findings the same problem.
func findingKey(f finding.Finding) string {
	var subj []string
	for _, s := range f.Subjects {
		_, v, _ := strings.Cut(s, ":")
		if !isGUID(v) {
			subj = append(subj, s)
		}
	}
	if len(subj) > 0 {
		sort.Strings(subj)
		return f.ID + "\x00" + strings.Join(subj, "\x00")
	}
	return f.ID + "\x00" + guidRE.ReplaceAllString(f.Summary, "<id>")
}
