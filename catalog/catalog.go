package catalog

import (
	"fmt"
	"path"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/wincni/diag/finding"
)

// DocsBase is where every rule's documentation lives: docs/rules.md, an
// anchor a rule.
const DocsBase = "https://github.com/wincni/diag/blob/main/docs/rules.md#"

// DocsURL is the address of the documentation of rule id.
func DocsURL(id string) string { return DocsBase + strings.ToLower(id) }

// Complete fills in what a finding of rule e takes from the rule: its ID
// and title, its severity where the check gave none (Skip, the zero value),
// its fix where the check gave no remediation, and the address of its
// documentation. Evidence is never nil: JSON reports write [], not null.
func (e Entry) Complete(f finding.Finding) finding.Finding {
	f.ID, f.Title, f.DocsURL = e.ID, e.Title, DocsURL(e.ID)
	if f.Severity == finding.Skip {
		f.Severity = e.Severity
	}
	if f.Remediation == "" {
		f.Remediation = e.Fix
	}
	if f.Evidence == nil {
		f.Evidence = []finding.Evidence{}
	}
	return f
}

// Entry is one rule as diag documents it. The JSON keys are those of
// diag rules -o json.
type Entry struct {
	ID       string           `json:"id"`
	Title    string           `json:"title"`
	Severity finding.Severity `json:"severity"`
	// Needs names the inputs without which the rule is skipped; for an
	// unchecked mode, the data that would reveal it.
	Needs   string   `json:"needs,omitempty"`
	Checks  string   `json:"checks,omitempty"`
	Why     string   `json:"why,omitempty"`
	Fix     string   `json:"fix,omitempty"`
	Sources []string `json:"sources,omitempty"`
	// Upstream is the upstream behaviour the rule is grounded in
	// (component and file); Guards are its false-positive guards.
	Upstream []string `json:"upstream,omitempty"`
	Guards   []string `json:"guards,omitempty"`
	// Unchecked marks a mode of the failure catalog no bundle can reveal.
	Unchecked bool `json:"unchecked,omitempty"`
	// File is where the rule is declared (analyzers/ovl.go): the file of
	// the function its declaration passed to Declare.
	File string `json:"file,omitempty"`
}

var (
	mu      sync.Mutex
	entries = map[string]Entry{}
	// declaredIn holds, for an entry whose File is not named yet, the
	// function its declaration passed. Rules declare themselves at
	// start-up: naming the file there (runtime.Caller, which walks the
	// stack and reads the symbol tables) would cost every diag command
	// start-up work and memory for a field only diag rules shows.
	declaredIn = map[string]any{}
)

// Declare adds a rule to the catalog; a second rule with the same ID is a
// bug, refused at start-up. in is a function of the file that declares the
// rule (its check, where it has one): the entry's File names that file
// when the entry is first read.
func Declare(e Entry, in any) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := entries[e.ID]; dup {
		panic(fmt.Sprintf("catalog: rule %s declared twice", e.ID))
	}
	entries[e.ID] = e
	if in != nil {
		declaredIn[e.ID] = in
	}
}

// resolved is the entry id with its File, named on the first read. mu is
// held.
func resolved(id string) Entry {
	e := entries[id]
	if in, ok := declaredIn[id]; ok {
		delete(declaredIn, id)
		if v := reflect.ValueOf(in); v.Kind() == reflect.Func && !v.IsNil() {
			if f := runtime.FuncForPC(v.Pointer()); f != nil {
				file, _ := f.FileLine(f.Entry())
				e.File = path.Join(path.Base(path.Dir(file)), path.Base(file))
				entries[id] = e
			}
		}
	}
	return e
}

// Rules lists the rules diag checks, in ID order.
func Rules() []Entry { return list(false) }

// Unchecked lists the modes diag does not check, in ID order.
func Unchecked() []Entry { return list(true) }

func list(unchecked bool) []Entry {
	mu.Lock()
	defer mu.Unlock()
	var out []Entry
	for id, e := range entries {
		if e.Unchecked == unchecked {
			out = append(out, resolved(id))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Lookup finds a rule, checked or not, by ID in any case.
func Lookup(id string) (Entry, bool) {
	mu.Lock()
	defer mu.Unlock()
	id = strings.ToUpper(strings.TrimSpace(id))
	if _, ok := entries[id]; !ok {
		return Entry{}, false
	}
	return resolved(id), true
}

// Family lists the checked rules of a family (OVL, svc, CAP-): the IDs
// that start with it and a dash.
func Family(prefix string) []Entry {
	p := strings.TrimSuffix(strings.ToUpper(strings.TrimSpace(prefix)), "-") + "-"
	if p == "-" {
		return nil
	}
	var out []Entry
	for _, e := range Rules() {
		if strings.HasPrefix(e.ID, p) {
			out = append(out, e)
		}
	}
	return out
}

// About is what a rule checks and why it matters, for a report read
// without the documentation at hand.
func About(id string) string {
	mu.Lock()
	e, ok := entries[strings.ToUpper(strings.TrimSpace(id))]
	mu.Unlock()
	if !ok {
		return ""
	}
	return strings.TrimSpace(e.Checks + " " + e.Why)
}
