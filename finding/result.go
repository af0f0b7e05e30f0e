package finding

// Result is the outcome of running the rules on a set of inputs: what
// every report of an analysis is built from.
type Result struct {
	Findings []Finding
	Skipped  []Skipped
	// Notes are about the analysis as a whole (several bundles of one
	// node); reports show each as one line.
	Notes []string
	// Coverage says, per input, which rules ran and which do not apply, so
	// that "no findings" never reads as "everything was checked".
	Coverage map[string]*Coverage
}

// Coverage is what was checked on one input.
type Coverage struct {
	Ran []string `json:"ran"` // rule IDs that ran on the input's data
	// NotApplicable counts the rules that do not apply to the node, by
	// why: "linux" (HNS, VFP and Windows rules on a Linux node) or the
	// network plugin they are about ("flannel").
	NotApplicable map[string]int `json:"notApplicable,omitempty"`
}

// CoverageFor is the coverage of input, made on first use.
func (res *Result) CoverageFor(input string) *Coverage {
	if res.Coverage == nil {
		res.Coverage = map[string]*Coverage{}
	}
	c := res.Coverage[input]
	if c == nil {
		c = &Coverage{Ran: []string{}}
		res.Coverage[input] = c
	}
	return c
}

// CountNotApplicable counts one rule that does not apply, by why.
func (c *Coverage) CountNotApplicable(why string) {
	if c.NotApplicable == nil {
		c.NotApplicable = map[string]int{}
	}
	c.NotApplicable[why]++
}
