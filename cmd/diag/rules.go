package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
	"github.com/spf13/cobra"

	"github.com/wincni/diag/catalog"
)

func newRulesCommand(e *env) *cobra.Command {
	var markdown bool
	var output string
	c := &cobra.Command{
		Use:   "rules [ID]",
		Short: "List the rules, or explain one",
		Long: `rules lists every rule diag runs (ID, severity, title, the inputs it needs). With an ID it
explains that rule: what it checks, why it matters, how to fix it, the upstream behaviour it is
grounded in, its false-positive guards, and its sources.` + exitStatusCommon,
		Example: `  diag rules
  diag rules OVL-01
  diag rules -o markdown > docs/rules.md
  diag rules -o json OVL`,
		Args: maxArgs(1),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			var ids []string
			for _, r := range allRules() {
				ids = append(ids, r.ID+"\t"+r.Title)
			}
			return ids, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			if markdown {
				output = "markdown"
			}
			switch output {
			case "table", "markdown", "json":
			default:
				return usageErrorf("--output must be table, markdown or json, not %q", output)
			}
			if output == "markdown" {
				if len(args) > 0 {
					return usageErrorf("-o markdown prints every rule (docs/rules.md): it takes no ID")
				}
				return writeRulesMarkdown(e.stdout)
			}
			rules := allRules()
			var one *ruleDoc
			if len(args) == 1 {
				if r, ok := lookupRule(args[0]); ok {
					one = &r
				} else if fam := ruleFamily(args[0]); len(fam) > 0 {
					rules = fam
				} else {
					return usageErrorf("no rule or family %q%s (diag rules lists them)", args[0], suggestRule(args[0]))
				}
			}
			switch {
			case output == "json" && one != nil:
				return writeJSONValue(e, one)
			case output == "json":
				return writeJSONValue(e, rules)
			case one != nil:
				return explainRule(e, *one)
			case len(args) == 1:
				return listRulesOf(e, rules)
			}
			return listRules(e, rules)
		},
	}
	c.Flags().StringVarP(&output, "output", "o", "table", "table (one rule: its explanation), markdown (every rule, as docs/rules.md) or json")
	foldCase(c.Flags(), "output")
	c.Flags().BoolVar(&markdown, "markdown", false, "the same as -o markdown")
	_ = c.Flags().MarkHidden("markdown")
	return c
}

// writeJSONValue prints v as indented JSON.
func writeJSONValue(e *env, v any) error {
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// ruleDoc is one rule of the catalog as diag rules shows it.
type ruleDoc = catalog.Entry

func allRules() []ruleDoc       { return catalog.Rules() }
func uncheckedRules() []ruleDoc { return catalog.Unchecked() }
func lookupRule(id string) (ruleDoc, bool) {
	return catalog.Lookup(id)
}
func ruleFamily(prefix string) []ruleDoc { return catalog.Family(prefix) }

func listRulesOf(e *env, rules []ruleDoc) error {
	return listRules(e, rules)
}

// suggestRule names the rule IDs nearest to a misspelled one (one edit
// away, or the same digits in another family).
func suggestRule(s string) string {
	s = strings.ToUpper(strings.TrimSpace(s))
	bare := strings.ReplaceAll(strings.ReplaceAll(s, "-", ""), "_", "")
	for _, within := range []int{0, 1, 2} {
		var near []string
		for _, r := range allRules() {
			if within == 0 && bare == strings.ReplaceAll(r.ID, "-", "") || within > 0 && editDistance(s, r.ID) <= within {
				near = append(near, r.ID)
			}
		}
		if len(near) > 0 && len(near) <= 5 {
			return "; did you mean " + strings.Join(near, ", ") + "?"
		}
		if len(near) > 5 {
			return ""
		}
	}
	return ""
}

// editDistance is the Levenshtein distance of two short strings.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// rulesTable is an ASCII table as wide as the terminal, its headers as
// written, its cells wrapped.
func rulesTable(e *env) *tablewriter.Table {
	return tablewriter.NewTable(e.stdout,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignment(tw.AlignLeft),
		tablewriter.WithRowAutoWrap(tw.WrapNormal),
		tablewriter.WithMaxWidth(e.width()),
	)
}

func listRules(e *env, rules []ruleDoc) error {
	t := rulesTable(e)
	t.Header("ID", "SEVERITY", "TITLE", "NEEDS")
	for _, r := range rules {
		if err := t.Append(r.ID, r.Severity, r.Title, r.Needs); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	if len(rules) != len(allRules()) {
		return nil // a family: the catalog's unchecked modes belong to the full list
	}
	fmt.Fprintf(e.stdout, "\nNot checked: these modes of the catalog show in data no bundle holds.\n")
	u := rulesTable(e)
	u.Header("ID", "TITLE", "WOULD NEED")
	for _, r := range uncheckedRules() {
		if err := u.Append(r.ID, r.Title, r.Needs); err != nil {
			return err
		}
	}
	return u.Render()
}

func explainRule(e *env, r ruleDoc) error {
	var b strings.Builder
	section := func(title, text string) {
		fmt.Fprintf(&b, "%s\n%s\n\n", title, indentWrap(text, e.width()-2))
	}
	if r.Unchecked {
		fmt.Fprintf(&b, "%s  %s  (not checked: %s if it were)\n\n", r.ID, r.Title, r.Severity)
		section("NOT CHECKED", "diag does not check this mode: the data it shows in is in no bundle. It would need "+r.Needs)
	} else {
		fmt.Fprintf(&b, "%s  %s  (%s)\n\n", r.ID, r.Title, r.Severity)
		section("WHAT IT CHECKS", r.Checks)
	}
	section("WHY IT MATTERS", r.Why)
	section("HOW TO FIX", r.Fix)
	if !r.Unchecked {
		section("NEEDS", r.Needs)
	}
	list := func(title string, items []string) {
		if len(items) == 0 {
			return
		}
		b.WriteString(title + "\n")
		for _, it := range items {
			fmt.Fprintf(&b, "%s\n", bulletWrap(it, e.width()-2))
		}
		b.WriteString("\n")
	}
	list("GROUNDED IN", r.Upstream)
	list("FALSE-POSITIVE GUARDS", r.Guards)
	if r.File != "" {
		fmt.Fprintf(&b, "DECLARED IN\n  %s\n\n", r.File)
	}
	b.WriteString("SOURCES\n")
	for _, s := range r.Sources {
		fmt.Fprintf(&b, "  %s\n", s)
	}
	fmt.Fprintf(&b, "\nDOCS\n  %s\n", catalog.DocsURL(r.ID))
	_, err := fmt.Fprint(e.stdout, b.String())
	return err
}

// bulletWrap wraps one list item to width: "  - " before its first line,
// four spaces before the others.
func bulletWrap(text string, width int) string {
	lines := strings.Split(indentWrap(text, width-2), "\n")
	for i, l := range lines {
		if i == 0 {
			lines[i] = "  - " + strings.TrimPrefix(l, "  ")
		} else {
			lines[i] = "  " + l
		}
	}
	return strings.Join(lines, "\n")
}

// indentWrap wraps text to width and indents it by two spaces.
func indentWrap(text string, width int) string {
	if width < 40 {
		width = 40
	}
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > width-2 {
			lines = append(lines, "  "+line)
			line = w
			continue
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, "  "+line)
	}
	return strings.Join(lines, "\n")
}
