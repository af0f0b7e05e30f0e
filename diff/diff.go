package diff

import (
	"fmt"

	"github.com/wincni/diag/snapshot"
)

// Action says what happened to an object.
type Action string

// The actions of the JSON contract (docs/diff.schema.json).
const (
	Added   Action = "added"
	Removed Action = "removed"
	Changed Action = "changed"
	// Recreated: a network with the same name and a new ID, what an HNS
	// restart or a CNI reinstall leaves.
	Recreated Action = "recreated"
)

// The kinds of object a change is about, in report order.
const (
	KindNetwork           = "network"
	KindRemoteSubnetRoute = "remoteSubnetRoute"
	KindEndpoint          = "endpoint"
	KindLoadBalancer      = "loadBalancer"
	KindVFPPort           = "vfpPort"
	KindVFPLayer          = "vfpLayer"
	KindVFPRule           = "vfpRule"
	KindAdapter           = "adapter"
	KindHostRoute         = "hostRoute"
	KindKubeProxy         = "kubeProxy"
	KindCNIConfig         = "cniConfig"
	KindOS                = "os"
	KindHotfix            = "hotfix"
)

// Change is one difference between the two snapshots. Old and New are the
// values of Field (or, for a recreated network, its old and new ID).
type Change struct {
	Kind string `json:"kind"`
	Name string `json:"name,omitempty"`
	ID   string `json:"id,omitempty"`
	// Parent is what the object belongs to: the network of an endpoint or
	// a route, the port and layer of a VFP rule.
	Parent string `json:"parent,omitempty"`
	Field  string `json:"field,omitempty"`
	Old    string `json:"old,omitempty"`
	New    string `json:"new,omitempty"`
	Change Action `json:"change"`
	// Detail is context for a person (a remote endpoint's provider address).
	Detail string `json:"detail,omitempty"`
}

// Result is what changed between two snapshots.
type Result struct {
	Changes []Change `json:"changes"`
	// Notes say what could not be compared, once per input one side lacks.
	Notes []string `json:"notes"`
}

// area is one part of the model and the input it comes from: it is
// compared only when both sides have that input.
type area struct {
	input   snapshot.Input
	compare func(c *comparer)
}

var areas = []area{
	{snapshot.InputHNSNetworks, (*comparer).networks},
	{snapshot.InputHNSEndpoints, (*comparer).endpoints},
	{snapshot.InputHNSLoadBalancers, (*comparer).loadBalancers},
	{snapshot.InputVFP, (*comparer).vfp},
	{snapshot.InputHostAdapters, (*comparer).adapters},
	{snapshot.InputHostRoutes, (*comparer).hostRoutes},
	{snapshot.InputKubeProxy, (*comparer).kubeProxy},
	{snapshot.InputCNIConfig, (*comparer).cniConfigs},
	{snapshot.InputOS, (*comparer).os},
}

// comparer carries both sides and collects the changes.
type comparer struct {
	old, new *snapshot.Snapshot
	changes  []Change
	// networkPairs are the networks found on both sides (by ID or name).
	networkPairs [][2]*snapshot.Network
}

func (c *comparer) add(ch Change) { c.changes = append(c.changes, ch) }

// Compare returns what changed from old to new. Only what both sides have
// is compared; each input one side lacks is one note.
func Compare(old, new *snapshot.Snapshot) Result {
	c := &comparer{old: old, new: new}
	res := Result{Changes: []Change{}, Notes: []string{}}
	for _, a := range areas {
		o, n := old.Has(a.input), new.Has(a.input)
		switch {
		case o && n:
			a.compare(c)
		case o:
			res.Notes = append(res.Notes, missingNote("NEW", a.input))
		case n:
			res.Notes = append(res.Notes, missingNote("OLD", a.input))
		}
	}
	if c.changes != nil {
		res.Changes = c.changes
	}
	return res
}

func missingNote(side string, in snapshot.Input) string {
	what := snapshot.InputFiles[in]
	if what == "" {
		what = string(in)
	}
	return fmt.Sprintf("%s has no %s: not compared", side, what)
}
