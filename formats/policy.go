package formats

import (
	"strings"

	"github.com/wincni/diag/snapshot"
)

// policyOf normalizes a policy object: V1 keeps its settings flat beside
// Type, V2 nests them under Settings (older schema documents say Data).
func policyOf(o obj) snapshot.Policy {
	p := snapshot.Policy{Type: o.str("Type")}
	if s := o.child("Settings", "Data"); s != nil {
		p.Settings = s
		return p
	}
	p.Settings = make(map[string]any, len(o))
	for k, v := range o {
		if !strings.EqualFold(k, "Type") {
			p.Settings[k] = v
		}
	}
	return p
}

func policiesOf(list []obj) []snapshot.Policy {
	out := make([]snapshot.Policy, 0, len(list))
	for _, o := range list {
		out = append(out, policyOf(o))
	}
	return out
}

// settings gives the accessor helpers to a policy's settings.
func settingsOf(p snapshot.Policy) obj { return obj(p.Settings) }
