package diff

import (
	"sort"
	"strings"

	"github.com/wincni/diag/snapshot"
)

// networks pairs networks by ID, then the rest by name: the same name with
// a new ID is one "recreated" change (an HNS restart), then the fields of
// the pair are compared as for any other pair.
func (c *comparer) networks() {
	oldByID := map[string]*snapshot.Network{}
	for _, n := range c.old.Networks {
		if n.ID != "" {
			oldByID[strings.ToUpper(n.ID)] = n
		}
	}
	matched := map[*snapshot.Network]bool{}
	for _, n := range c.new.Networks {
		if o := oldByID[strings.ToUpper(n.ID)]; n.ID != "" && o != nil && !matched[o] {
			matched[o], matched[n] = true, true
			c.networkPairs = append(c.networkPairs, [2]*snapshot.Network{o, n})
		}
	}
	oldByName := map[string]*snapshot.Network{}
	for _, o := range c.old.Networks {
		if !matched[o] && o.Name != "" && oldByName[o.Name] == nil {
			oldByName[o.Name] = o
		}
	}
	var added []*snapshot.Network
	for _, n := range c.new.Networks {
		if matched[n] {
			continue
		}
		if o := oldByName[n.Name]; n.Name != "" && o != nil && !matched[o] {
			matched[o], matched[n] = true, true
			c.networkPairs = append(c.networkPairs, [2]*snapshot.Network{o, n})
			continue
		}
		added = append(added, n)
	}
	var removed []*snapshot.Network
	for _, o := range c.old.Networks {
		if !matched[o] {
			removed = append(removed, o)
		}
	}
	sort.SliceStable(c.networkPairs, func(i, j int) bool { return c.networkPairs[i][1].Name < c.networkPairs[j][1].Name })
	for _, p := range c.networkPairs {
		c.networkPair(p[0], p[1])
	}
	for _, o := range sortNetworks(removed) {
		c.add(Change{Kind: KindNetwork, Name: o.Name, ID: o.ID, Change: Removed, Detail: networkDetail(o)})
	}
	for _, n := range sortNetworks(added) {
		c.add(Change{Kind: KindNetwork, Name: n.Name, ID: n.ID, Change: Added, Detail: networkDetail(n)})
	}
}

func sortNetworks(ns []*snapshot.Network) []*snapshot.Network {
	sort.SliceStable(ns, func(i, j int) bool { return ns[i].Name < ns[j].Name })
	return ns
}

func networkDetail(n *snapshot.Network) string {
	d := n.Type
	if a := addr(n.ManagementIP); a != "" {
		d += ", ManagementIP " + a
	}
	return strings.TrimPrefix(d, ", ")
}

// networkPair compares one network across the sides. A field the source
// did not show (a cut Format-List paste) is not compared.
func (c *comparer) networkPair(o, n *snapshot.Network) {
	base := Change{Kind: KindNetwork, Name: n.Name, ID: n.ID}
	if !strings.EqualFold(o.ID, n.ID) {
		c.add(Change{Kind: KindNetwork, Name: n.Name, ID: n.ID, Field: "ID", Old: o.ID, New: n.ID, Change: Recreated, Detail: networkDetail(n)})
	}
	knows := func(f string) bool { return o.Knows(f) && n.Knows(f) }
	c.field(base, "Name", o.Name, n.Name)
	if knows("Type") {
		c.field(base, "Type", o.Type, n.Type)
	}
	if knows("ManagementIP") {
		c.field(base, "ManagementIP", addr(o.ManagementIP), addr(n.ManagementIP))
		// The V2 ProviderAddress policy is said on its own only when it
		// does not simply follow the ManagementIP above.
		if o.V2ProviderAddress != n.V2ProviderAddress && (o.V2ProviderAddress != o.ManagementIP || n.V2ProviderAddress != n.ManagementIP) {
			c.field(base, "ProviderAddress", addr(o.V2ProviderAddress), addr(n.V2ProviderAddress))
		}
	}
	if knows("DrMacAddress") {
		c.field(base, "DR MAC", strings.ToLower(o.DrMAC), strings.ToLower(n.DrMAC))
	}
	if knows("Subnets") {
		c.field(base, "VNI", vsids(o), vsids(n))
		c.field(base, "Subnets", prefixes(o), prefixes(n))
	}
	c.field(base, "AdapterName", o.AdapterName, n.AdapterName)
	c.field(base, "VxlanPort", itoa(int64(o.VxlanPort)), itoa(int64(n.VxlanPort)))
	if knows("Policies") {
		c.remoteSubnetRoutes(o, n)
	}
}

func vsids(n *snapshot.Network) string {
	var v []string
	for _, s := range n.Subnets {
		v = append(v, itoa(s.VSID))
	}
	return set(v)
}

func prefixes(n *snapshot.Network) string {
	var v []string
	for _, p := range n.Prefixes() {
		v = append(v, p.String())
	}
	return set(v)
}

// remoteSubnetRoutes compares a network's routes to the other nodes' pod
// subnets by DestinationPrefix: a lost route is a peer this node can no
// longer reach through the overlay.
func (c *comparer) remoteSubnetRoutes(o, n *snapshot.Network) {
	key := func(r snapshot.RemoteSubnetRoute) string { return r.DestinationPrefix.String() }
	om, ok := keyed(o.RemoteSubnetRoutes, key)
	nm, nk := keyed(n.RemoteSubnetRoutes, key)
	parent := "network " + n.Name
	pairs(om, nm, ok, nk, func(k string, or, nr snapshot.RemoteSubnetRoute, inOld, inNew bool) {
		base := Change{Kind: KindRemoteSubnetRoute, Name: k, Parent: parent}
		switch {
		case !inNew:
			base.Change, base.Detail = Removed, rsrDetail(or)
			c.add(base)
		case !inOld:
			base.Change, base.Detail = Added, rsrDetail(nr)
			c.add(base)
		default:
			c.field(base, "ProviderAddress", addr(or.ProviderAddress), addr(nr.ProviderAddress))
			c.field(base, "DR MAC", strings.ToLower(or.DrMAC), strings.ToLower(nr.DrMAC))
			c.field(base, "IsolationID", itoa(or.IsolationID), itoa(nr.IsolationID))
		}
	})
}

func rsrDetail(r snapshot.RemoteSubnetRoute) string {
	d := "ProviderAddress " + addr(r.ProviderAddress)
	if r.DrMAC != "" {
		d += ", DR MAC " + strings.ToLower(r.DrMAC)
	}
	return d
}

// networkNames maps a side's network IDs to names, for endpoints.
func networkNames(s *snapshot.Snapshot) map[string]string {
	m := make(map[string]string, len(s.Networks))
	for _, n := range s.Networks {
		m[strings.ToUpper(n.ID)] = n.Name
	}
	return m
}

func endpointNetwork(e *snapshot.Endpoint, names map[string]string) string {
	if e.NetworkName != "" {
		return e.NetworkName
	}
	if n := names[strings.ToUpper(e.NetworkID)]; n != "" {
		return n
	}
	return e.NetworkID
}

// endpoints compares endpoints by ID: after an HNS restart every one has a
// new ID, and the ones not recreated are the pods that lost networking.
func (c *comparer) endpoints() {
	key := func(e *snapshot.Endpoint) string { return strings.ToUpper(e.ID) }
	om, ok := keyed(c.old.Endpoints, key)
	nm, nk := keyed(c.new.Endpoints, key)
	oldNames, newNames := networkNames(c.old), networkNames(c.new)
	var gone, came []Change
	pairs(om, nm, ok, nk, func(_ string, o, n *snapshot.Endpoint, inOld, inNew bool) {
		switch {
		case !inNew:
			gone = append(gone, endpointChange(o, oldNames, Removed))
		case !inOld:
			came = append(came, endpointChange(n, newNames, Added))
		default:
			base := endpointChange(n, newNames, Changed)
			base.Detail = ""
			c.field(base, "IPAddress", addr(o.IP), addr(n.IP))
			if o.Knows("MacAddress") && n.Knows("MacAddress") {
				c.field(base, "MacAddress", strings.ToLower(o.MAC), strings.ToLower(n.MAC))
			}
			if o.Knows("Policies") && n.Knows("Policies") {
				c.field(base, "ProviderAddress", addr(o.ProviderAddress), addr(n.ProviderAddress))
			}
			if o.Knows("IsRemoteEndpoint") && n.Knows("IsRemoteEndpoint") {
				c.field(base, "IsRemoteEndpoint", boolString(o.IsRemote), boolString(n.IsRemote))
			}
		}
	})
	// By network, then address: a report can then say "12 endpoints of
	// network Calico removed" in one line.
	for _, list := range [][]Change{gone, came} {
		sort.SliceStable(list, func(i, j int) bool {
			if list[i].Parent != list[j].Parent {
				return list[i].Parent < list[j].Parent
			}
			return lessName(list[i].Name, list[j].Name)
		})
		c.changes = append(c.changes, list...)
	}
}

func endpointChange(e *snapshot.Endpoint, names map[string]string, a Action) Change {
	name := addr(e.IP)
	if name == "" {
		name = e.Name
	}
	ch := Change{Kind: KindEndpoint, Name: name, ID: e.ID, Change: a}
	if net := endpointNetwork(e, names); net != "" {
		ch.Parent = "network " + net
	}
	if e.IsRemote {
		ch.Detail = "remote"
		if pa := addr(e.ProviderAddress); pa != "" {
			ch.Detail += ", ProviderAddress " + pa
		}
	} else {
		ch.Detail = "local"
	}
	return ch
}

func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
