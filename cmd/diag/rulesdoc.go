package main

import (
	"fmt"
	"io"
	"strings"
)

// writeRulesMarkdown writes docs/rules.md from the rule registry, so that
// the documentation and `diag rules` cannot drift apart (a test compares
// them).
func writeRulesMarkdown(w io.Writer) error {
	ew := &mdWriter{w: w}
	ew.printf("# diag rules\n\n")
	ew.printf("Generated from the rule registry by `diag rules -o markdown > docs/rules.md`; a test keeps it in\n")
	ew.printf("sync. The reports carry each rule's explanation; this page has them all. The IDs are those of the failure-mode catalog; CAP rules\n")
	ew.printf("run on captures (`diag capture decode`, and captures inside bundles).\n\n")
	ew.printf("| ID | Severity | Title | Needs |\n|---|---|---|---|\n")
	rules := allRules()
	for _, r := range rules {
		ew.printf("| [%s](#%s) | %s | %s | %s |\n", r.ID, strings.ToLower(r.ID), r.Severity, r.Title, r.Needs)
	}
	for _, r := range rules {
		ew.printf("\n## %s\n\n**%s** (%s)\n\n", r.ID, r.Title, r.Severity)
		ew.printf("**What it checks.** %s\n\n**Why it matters.** %s\n\n**How to fix.** %s\n\n**Needs:** %s\n\n", r.Checks, r.Why, r.Fix, r.Needs)
		ew.bullets("**Grounded in:**", r.Upstream)
		ew.bullets("**False-positive guards:**", r.Guards)
		ew.printf("**Sources:**\n")
		for _, s := range r.Sources {
			ew.printf("- %s\n", s)
		}
	}
	unchecked := uncheckedRules()
	ew.printf("\n## Not checked\n\nThese modes of the catalog show in data no bundle holds; diag lists them so that a report's\nsilence about them is not read as a clean bill.\n\n")
	ew.printf("| ID | Title | Would need |\n|---|---|---|\n")
	for _, r := range unchecked {
		ew.printf("| [%s](#%s) | %s | %s |\n", r.ID, strings.ToLower(r.ID), r.Title, r.Needs)
	}
	for _, r := range unchecked {
		ew.printf("\n### %s\n\n**%s** (not checked; %s if it were)\n\n", r.ID, r.Title, r.Severity)
		ew.printf("**Would need:** %s\n\n**Why it matters.** %s\n\n**How to fix.** %s\n\n", r.Needs, r.Why, r.Fix)
		ew.printf("**Sources:**\n")
		for _, s := range r.Sources {
			ew.printf("- %s\n", s)
		}
	}
	return ew.err
}

type mdWriter struct {
	w   io.Writer
	err error
}

// bullets writes a titled bulleted list and a blank line; nothing when the
// list is empty.
func (m *mdWriter) bullets(title string, items []string) {
	if len(items) == 0 {
		return
	}
	m.printf("%s\n", title)
	for _, it := range items {
		m.printf("- %s\n", it)
	}
	m.printf("\n")
}

func (m *mdWriter) printf(format string, args ...any) {
	if m.err == nil {
		_, m.err = fmt.Fprintf(m.w, format, args...)
	}
}
