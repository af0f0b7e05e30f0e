package cluster

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"
)

// Selection says which nodes to collect from: named ones (or "auto"), a
// label selector, Windows nodes only; all nodes when empty.
type Selection struct {
	Names       []string
	Auto        bool
	Selector    string
	WindowsOnly bool
}

// Choice is a node chosen, or one left out and why.
type Choice struct {
	Node Node
	Why  string // auto mode: why it was picked
	Skip string // not collected: the reason
}

// Choose lists the nodes and picks those to collect from. Nodes whose
// kubelet does not report (Ready Unknown) cannot start a pod: they are
// returned with Skip set, so cluster.json names them.
func Choose(ctx context.Context, api *API, sel Selection, now time.Time) ([]Choice, error) {
	selector := sel.Selector
	if sel.WindowsOnly {
		selector = joinSelectors(selector, "kubernetes.io/os=windows")
	}
	nodes, err := api.Nodes(ctx, selector)
	if err != nil {
		return nil, err
	}
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].Name < nodes[j].Name })
	var out []Choice
	switch {
	case sel.Auto:
		out, err = chooseAuto(ctx, api, nodes, now)
		if err != nil {
			return nil, err
		}
	case len(sel.Names) > 0:
		byName := map[string]Node{}
		for _, n := range nodes {
			byName[n.Name] = n
		}
		missing := "no such node"
		if selector != "" {
			missing += " (among those the selector matches)"
		}
		seen := map[string]bool{}
		for _, name := range sel.Names {
			if seen[name] {
				continue // one pod and one bundle per node
			}
			seen[name] = true
			n, ok := byName[name]
			if !ok {
				out = append(out, Choice{Node: Node{Name: name}, Skip: missing})
				continue
			}
			out = append(out, Choice{Node: n})
		}
	default:
		for _, n := range nodes {
			out = append(out, Choice{Node: n})
		}
	}
	for i := range out {
		c := &out[i]
		if c.Skip == "" && c.Node.Ready == "Unknown" {
			c.Skip = "kubelet not reporting (Ready Unknown" + orEmpty(": ", c.Node.ReadyReason) + "): no pod can start there"
		}
		if c.Skip == "" && c.Node.OS != "windows" && c.Node.OS != "linux" {
			c.Skip = fmt.Sprintf("%s %q: diag collects from Windows and Linux nodes", skipOS, c.Node.OS)
		}
	}
	return out, nil
}

// chooseAuto picks the nodes that matter for a networking ticket: Windows
// nodes that are NotReady or whose kubelet failed pod sandboxes in the
// last hour, plus one healthy Windows and one Linux node to compare with.
func chooseAuto(ctx context.Context, api *API, nodes []Node, now time.Time) ([]Choice, error) {
	failures, err := api.SandboxFailures(ctx, now.Add(-time.Hour))
	if err != nil {
		return nil, fmt.Errorf("--nodes auto reads the sandbox failure events: %w", err)
	}
	var out []Choice
	var healthyWin, linux *Node
	for i := range nodes {
		n := &nodes[i]
		var why []string
		if n.OS == "windows" && n.Ready != "True" {
			notReady := "NotReady"
			if n.ReadyReason != "" {
				notReady += " (" + n.ReadyReason + ")"
			}
			why = append(why, notReady)
		}
		if k := failures[n.Name]; k > 0 {
			why = append(why, fmt.Sprintf("%d pod sandbox failure event(s) in the last hour", k))
		}
		switch {
		case len(why) > 0:
			out = append(out, Choice{Node: *n, Why: strings.Join(why, "; ")})
		case n.OS == "windows" && n.Ready == "True" && healthyWin == nil:
			healthyWin = n
		case n.OS == "linux" && n.Ready == "True" && linux == nil:
			linux = n
		}
	}
	if healthyWin != nil {
		out = append(out, Choice{Node: *healthyWin, Why: "a healthy Windows node to compare with"})
	}
	if linux != nil {
		out = append(out, Choice{Node: *linux, Why: "a Linux node, the overlay's other end"})
	}
	return out, nil
}

func joinSelectors(a, b string) string {
	if a == "" {
		return b
	}
	return a + "," + b
}

func orEmpty(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}

// skipOS starts the reason of a node skipped for its operating system.
const skipOS = "operating system"

// SkipIsOS: the node was skipped for its operating system, not because it
// was wanted and could not be reached.
func SkipIsOS(reason string) bool { return strings.HasPrefix(reason, skipOS) }
