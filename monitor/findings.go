package monitor

import (
	"sort"
	"strings"

	"github.com/wincni/diag/finding"
)

// maxLabel bounds a label value: a subject list can name many objects.
const maxLabel = 120

// subjectLabel is the finding's subjects as one label value: sorted,
// without HNS GUIDs (an HNS restart renews every one of them, which would
// make a new series of the same problem), cut at maxLabel.
func subjectLabel(f finding.Finding) string {
	var subj []string
	for _, s := range f.Subjects {
		if _, v, _ := strings.Cut(s, ":"); isGUID(v) {
			continue
		}
		subj = append(subj, s)
	}
	sort.Strings(subj)
	s := strings.Join(subj, ",")
	if len(s) > maxLabel {
		cut := maxLabel
		for cut > 0 && s[cut]&0xC0 == 0x80 { // never inside a UTF-8 sequence
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// findingKey is what makes two rounds' findings the same open problem:
// rule, severity and subjects, or the summary when there are none.
func findingKey(f finding.Finding) string {
	if s := subjectLabel(f); s != "" {
		return f.ID + "\x00" + f.Severity.String() + "\x00" + s
	}
	return f.ID + "\x00" + f.Severity.String() + "\x00" + f.Summary
}

// isGUID: 8-4-4-4-12 hex digits, with or without braces.
func isGUID(s string) bool {
	s = strings.TrimSuffix(strings.TrimPrefix(s, "{"), "}")
	if len(s) != 36 {
		return false
	}
	for i, c := range s {
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// transitions compares the open findings of two rounds by key.
func transitions(before, now map[string]finding.Finding) (appeared, resolved []finding.Finding) {
	for k, f := range now {
		if _, ok := before[k]; !ok {
			appeared = append(appeared, f)
		}
	}
	for k, f := range before {
		if _, ok := now[k]; !ok {
			resolved = append(resolved, f)
		}
	}
	byKey := func(fs []finding.Finding) {
		sort.Slice(fs, func(i, j int) bool { return findingKey(fs[i]) < findingKey(fs[j]) })
	}
	byKey(appeared)
	byKey(resolved)
	return appeared, resolved
}
