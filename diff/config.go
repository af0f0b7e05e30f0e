package diff

import (
	"path"
	"strings"

	"github.com/wincni/diag/snapshot"
)

// kubeProxy compares kube-proxy's flags one by one.
func (c *comparer) kubeProxy() {
	o, n := c.old.KubeProxy, c.new.KubeProxy
	if o == nil || n == nil {
		return
	}
	keys := func(m map[string]string) []string {
		out := make([]string, 0, len(m))
		for k := range m {
			out = append(out, k)
		}
		return out
	}
	om, ok := keyed(keys(o.Flags), func(s string) string { return s })
	nm, nk := keyed(keys(n.Flags), func(s string) string { return s })
	pairs(om, nm, ok, nk, func(k string, _, _ string, inOld, inNew bool) {
		base := Change{Kind: KindKubeProxy, Name: "kube-proxy", Field: "--" + k}
		switch {
		case !inNew:
			base.Change, base.Old = Removed, o.Flags[k]
			c.add(base)
		case !inOld:
			base.Change, base.New = Added, n.Flags[k]
			c.add(base)
		default:
			c.field(base, "--"+k, o.Flags[k], n.Flags[k])
		}
	})
}

// cniConfigs compares the CNI configuration files by file name (a collectlogs
// folder and a bundle keep them under different directories).
func (c *comparer) cniConfigs() {
	key := func(f *snapshot.CNIConfig) string { return path.Base(strings.ReplaceAll(f.File, `\`, "/")) }
	om, ok := keyed(c.old.CNIConfigs, key)
	nm, nk := keyed(c.new.CNIConfigs, key)
	pairs(om, nm, ok, nk, func(k string, o, n *snapshot.CNIConfig, inOld, inNew bool) {
		switch {
		case !inNew:
			c.add(Change{Kind: KindCNIConfig, Name: k, Change: Removed, Detail: strings.Join(o.Plugins, " → ")})
		case !inOld:
			c.add(Change{Kind: KindCNIConfig, Name: k, Change: Added, Detail: strings.Join(n.Plugins, " → ")})
		default:
			base := Change{Kind: KindCNIConfig, Name: k}
			c.field(base, "name", o.Name, n.Name)
			// Plugins run in order: the order is the value.
			c.field(base, "plugins", strings.Join(o.Plugins, " → "), strings.Join(n.Plugins, " → "))
			c.field(base, "OutBoundNAT exceptions", set(o.Exceptions), set(n.Exceptions))
			c.field(base, "nameservers", strings.Join(o.Nameservers, ", "), strings.Join(n.Nameservers, ", "))
			c.field(base, "invalid", o.Invalid, n.Invalid)
		}
	})
}
