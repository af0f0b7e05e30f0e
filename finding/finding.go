package finding

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Severity orders how bad a finding is. Skip and Error are not outcomes of a
// check: Skip means the rule's inputs were missing, Error that the rule crashed.
type Severity int

// The order matters: --fail-on compares severities with >=.
const (
	Skip Severity = iota
	Info
	Warn
	Fail
	Error
)

var severityNames = [...]string{Skip: "skip", Info: "info", Warn: "warn", Fail: "fail", Error: "error"}

func (s Severity) String() string {
	if s < 0 || int(s) >= len(severityNames) {
		return fmt.Sprintf("severity(%d)", int(s))
	}
	return severityNames[s]
}

// ParseSeverity reads a severity name as the CLI and JSON spell it.
func ParseSeverity(name string) (Severity, error) {
	for i, n := range severityNames {
		if strings.EqualFold(n, name) {
			return Severity(i), nil
		}
	}
	return 0, fmt.Errorf("unknown severity %q (want one of fail, warn, info)", name)
}

// MarshalJSON writes the severity by name: the name is the public contract.
func (s Severity) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// UnmarshalJSON reads the severity by name.
func (s *Severity) UnmarshalJSON(b []byte) error {
	var name string
	if err := json.Unmarshal(b, &name); err != nil {
		return err
	}
	v, err := ParseSeverity(name)
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// Evidence is one observed fact a finding rests on: where it was read, which
// object and field, what value was found and, when the rule knows, what was
// expected instead.
type Evidence struct {
	File     string `json:"file,omitempty"`
	Object   string `json:"object,omitempty"`
	Field    string `json:"field,omitempty"`
	Value    string `json:"value,omitempty"`
	Expected string `json:"expected,omitempty"`
	Note     string `json:"note,omitempty"`
}

// Finding is the outcome of one rule on one node (or on the cluster).
// The JSON keys id, severity, node, summary, evidence and remediation are a
// public contract (DESIGN.md): never rename them.
type Finding struct {
	ID       string     `json:"id"`
	Title    string     `json:"title"`
	Severity Severity   `json:"severity"`
	Node     string     `json:"node,omitempty"`
	Input    string     `json:"input,omitempty"` // the bundle the finding comes from
	Summary  string     `json:"summary"`
	Evidence []Evidence `json:"evidence"`
	// Subjects name the objects the finding is about, as "kind:name"
	// (network:Calico, address:10.0.2.15, node:worker2, prefix:10.244.3.0/24),
	// so that a report can mark them in its picture of the overlay.
	Subjects    []string `json:"subjects,omitempty"`
	Remediation string   `json:"remediation,omitempty"`
	DocsURL     string   `json:"docsURL,omitempty"`
	// Cause is the finding about a node's own state that explains this one
	// (a cross-node or capture finding on the same address): fix it first.
	Cause *Ref `json:"cause,omitempty"`
}

// Ref names one finding of a report: its rule and node.
type Ref struct {
	ID   string `json:"id"`
	Node string `json:"node,omitempty"`
}

func (r Ref) String() string {
	if r.Node == "" {
		return r.ID
	}
	return r.ID + " on " + r.Node
}

// Skipped records a rule that could not run on a node, and why.
type Skipped struct {
	ID     string `json:"id"`
	Node   string `json:"node,omitempty"`
	Input  string `json:"input,omitempty"`
	Reason string `json:"reason"`
}

// Explains lists the findings of fs whose Cause is f, in fs's order.
func Explains(f Finding, fs []Finding) []Ref {
	var out []Ref
	for _, s := range fs {
		if s.Cause != nil && s.Cause.ID == f.ID && s.Cause.Node == f.Node {
			out = append(out, Ref{ID: s.ID, Node: s.Node})
		}
	}
	return out
}

// JoinRefs lists refs as a report says them: "XN-01 on cluster, CAP-02 on
// controlplane".
func JoinRefs(refs []Ref) string {
	parts := make([]string, len(refs))
	for i, r := range refs {
		parts[i] = r.String()
	}
	return strings.Join(parts, ", ")
}
