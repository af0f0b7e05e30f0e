package report

import (
	"fmt"
	"sort"
	"strings"
)

// checkedLine says what was checked on an input, so that "no findings"
// never reads as "everything was checked": how many rules ran, by family,
// the rules that do not apply to this node and why, and how many were
// skipped for want of input.
func (r *Report) checkedLine(in Input) string {
	c := in.Checked
	if c == nil {
		return ""
	}
	var parts []string
	if len(c.Ran) == 0 {
		parts = append(parts, "no rule had the data it needs")
	} else {
		parts = append(parts, fmt.Sprintf("%d %s ran (%s)", len(c.Ran), plural(len(c.Ran), "rule", "rules"), families(c.Ran)))
	}
	if n := c.NotApplicable["linux"]; n > 0 {
		parts = append(parts, fmt.Sprintf("%d HNS, VFP and Windows %s do not apply to a Linux node (analyze the Windows nodes' bundles with it for those and the cross-node rules)", n, plural(n, "rule", "rules")))
	}
	for _, why := range sortedKeys(c.NotApplicable) {
		if why == "linux" {
			continue
		}
		n := c.NotApplicable[why]
		parts = append(parts, fmt.Sprintf("%d %s about %s do not apply (the node runs another network plugin)", n, plural(n, "rule", "rules"), why))
	}
	skipped := 0
	for _, s := range r.Skipped {
		if s.Input == in.Path {
			skipped++
		}
	}
	if skipped > 0 {
		parts = append(parts, fmt.Sprintf("%d skipped for want of their input (--show-skipped says which input each needs)", skipped))
	}
	return "checked: " + strings.Join(parts, "; ")
}

// families counts rule IDs by family: "HOST 2, LNX 3".
func families(ids []string) string {
	n := map[string]int{}
	for _, id := range ids {
		fam, _, _ := strings.Cut(id, "-")
		n[fam]++
	}
	var out []string
	for _, f := range sortedKeys(n) {
		out = append(out, fmt.Sprintf("%s %d", f, n[f]))
	}
	return strings.Join(out, ", ")
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
