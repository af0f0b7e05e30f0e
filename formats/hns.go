package formats

import (
	"bytes"
	"net/netip"
	"strings"

	"github.com/wincni/diag/snapshot"
)

var networkTypes = map[string]string{}

func init() {
	for _, t := range []string{snapshot.TypeNAT, snapshot.TypeOverlay, snapshot.TypeL2Bridge, snapshot.TypeL2Tunnel, snapshot.TypeTransparent, snapshot.TypeICS, snapshot.TypePrivate} {
		networkTypes[strings.ToLower(t)] = t
	}
}

// normalizeNetworkType maps HNS's type names case-insensitively. HNS omits
// the type of NAT networks (enum value 0), so empty means NAT.
func normalizeNetworkType(s string) string {
	if s == "" {
		return snapshot.TypeNAT
	}
	if t, ok := networkTypes[strings.ToLower(s)]; ok {
		return t
	}
	return s
}

// ParseNetworks parses HNS networks in either schema: V1 (Get-HnsNetwork,
// HNSCall) or V2 (HCN). file is the entry name, for references.
func ParseNetworks(data []byte, file string) ([]*snapshot.Network, error) {
	return parseEach(data, func(o obj, i int) *snapshot.Network { return networkOf(o, snapshot.Ref{File: file, Index: i}) })
}

func networkOf(o obj, ref snapshot.Ref) *snapshot.Network {
	n := &snapshot.Network{
		ID:          snapshot.NormalizeGUID(o.str("ID", "Id")),
		Name:        o.str("Name"),
		Type:        normalizeNetworkType(o.str("Type")),
		DrMAC:       snapshot.NormalizeMAC(o.str("DrMacAddress")),
		AdapterName: o.str("NetworkAdapterName"),
		LayeredOn:   snapshot.NormalizeGUID(o.str("LayeredOn")),
		Refs:        []snapshot.Ref{ref},
		Unknown:     unknownFields(o),
	}
	if _, cut := o.hiddenIn("Type"); cut {
		n.Type = snapshot.TypeUnknown
	}
	n.Flags, _ = o.num("Flags")
	if ip := o.str("ManagementIP"); ip != "" {
		n.V1ManagementIP = snapshot.ParseAddr(ip)
	}
	for _, e := range o.list("Extensions") {
		enabled, _ := e.boolean("IsEnabled")
		n.Extensions = append(n.Extensions, snapshot.Extension{ID: snapshot.NormalizeGUID(e.str("Id", "ID")), Name: e.str("Name"), Enabled: enabled})
	}
	if layered := o.child("Health").child("Extra").str("LayeredOn"); n.LayeredOn == "" && layered != "" {
		n.LayeredOn = snapshot.NormalizeGUID(layered)
	}

	// V1 subnets.
	for _, s := range o.list("Subnets") {
		sub := snapshot.Subnet{Prefix: snapshot.ParsePrefix(s.str("AddressPrefix")), Gateway: snapshot.ParseAddr(s.str("GatewayAddress"))}
		sub.VSID = isolationID(s.list("Policies"))
		n.Subnets = append(n.Subnets, sub)
	}
	// V2 IPAM subnets: the gateway is the next hop of the default route.
	for _, ipam := range o.list("Ipams") {
		for _, s := range ipam.list("Subnets") {
			sub := snapshot.Subnet{Prefix: snapshot.ParsePrefix(s.str("IpAddressPrefix"))}
			sub.VSID = isolationID(s.list("Policies"))
			for _, r := range s.list("Routes") {
				if d := snapshot.ParsePrefix(r.str("DestinationPrefix")); d.IsValid() && d.Bits() == 0 {
					sub.Gateway = snapshot.ParseAddr(r.str("NextHop"))
				}
			}
			n.Subnets = append(n.Subnets, sub)
		}
	}

	n.Policies = policiesOf(o.list("Policies"))
	for i, p := range n.Policies {
		s := settingsOf(p)
		switch p.Kind() {
		case "RemoteSubnetRoute":
			id, _ := s.num("IsolationId")
			n.RemoteSubnetRoutes = append(n.RemoteSubnetRoutes, snapshot.RemoteSubnetRoute{
				DestinationPrefix: snapshot.ParsePrefix(s.str("DestinationPrefix")),
				ProviderAddress:   snapshot.ParseAddr(s.str("ProviderAddress")),
				DrMAC:             snapshot.NormalizeMAC(s.str("DistributedRouterMacAddress")),
				IsolationID:       id,
				Index:             i,
			})
			// Typed above: the generic copy would keep a map per peer
			// node (999 in a 1,000-node cluster) for the whole analysis.
			n.Policies[i].Settings = nil
		case "HostRoute":
			n.HostRoute = true
		case "VxlanPort":
			if port, ok := s.num("Port"); ok {
				n.VxlanPort = int(port)
			}
		case "ProviderAddress":
			n.V2ProviderAddress = snapshot.ParseAddr(s.str("ProviderAddress"))
		case "DrMacAddress":
			if n.DrMAC == "" {
				n.DrMAC = snapshot.NormalizeMAC(s.str("Address"))
			}
		case "NetAdapterName":
			if n.AdapterName == "" {
				n.AdapterName = s.str("NetworkAdapterName")
			}
		}
	}
	pickManagementIP(n, ref.File)
	return n
}

// pickManagementIP prefers V1 ManagementIP; V2 reports the same address as
// the network's ProviderAddress policy.
func pickManagementIP(n *snapshot.Network, file string) {
	switch {
	case n.V1ManagementIP.IsValid():
		n.ManagementIP, n.ManagementIPFile, n.ManagementIPField = n.V1ManagementIP, file, "ManagementIP"
	case n.V2ProviderAddress.IsValid():
		n.ManagementIP, n.ManagementIPFile, n.ManagementIPField = n.V2ProviderAddress, file, "Policies[ProviderAddress]"
	}
}

func isolationID(policies []obj) int64 {
	for _, po := range policies {
		p := policyOf(po)
		if p.Kind() == "VSID" {
			if id, ok := settingsOf(p).num("IsolationId", "VSID"); ok {
				return id
			}
		}
	}
	return 0
}

// ParseEndpoints parses HNS endpoints in either schema.
func ParseEndpoints(data []byte, file string) ([]*snapshot.Endpoint, error) {
	return parseEach(data, func(o obj, i int) *snapshot.Endpoint { return endpointOf(o, snapshot.Ref{File: file, Index: i}) })
}

func endpointOf(o obj, ref snapshot.Ref) *snapshot.Endpoint { return endpointWith(o, ref, nil) }

// endpointWith is endpointOf taking the endpoint and its reference from
// slab, when set (a list's endpoints, endpointSlab).
func endpointWith(o obj, ref snapshot.Ref, slab *endpointSlab) *snapshot.Endpoint {
	x := keyedOf(o) // most of the keys asked for are not there
	e := slab.endpoint()
	*e = snapshot.Endpoint{
		ID:        slab.guid(x.first("ID", "Id")),
		Name:      slab.str(x.str("Name")),
		NetworkID: snapshot.NormalizeGUID(x.str("VirtualNetwork", "HostComputeNetwork")),
		MAC:       slab.mac(x.first("MacAddress")),
		Refs:      slab.ref(ref),
	}
	// The detail is built here and kept only when it holds something of
	// the endpoint's own (snapshot.Endpoint): the remote endpoints share a
	// few.
	d := snapshot.EndpointDetail{
		NetworkName: x.str("VirtualNetworkName"),
		Gateway:     snapshot.ParseAddr(x.str("GatewayAddress")),
		DNSServers:  x.strs("DNSServerList"),
		DNSSuffixes: x.strs("DNSSuffix"),
		NamespaceID: snapshot.NormalizeGUID(x.str("HostComputeNamespace")),
		Unknown:     unknownFields(o),
	}
	defer e.SetDetail(&d)
	if ns := x.child("Namespace"); ns != nil {
		d.NamespaceID = snapshot.NormalizeGUID(ns.str("ID", "Id"))
	}
	d.State, _ = x.num("State")
	if remote, ok := x.boolean("IsRemoteEndpoint"); ok {
		e.IsRemote = remote
	}
	if flags, ok := x.num("Flags"); ok && flags&1 != 0 {
		e.IsRemote = true // V2 EndpointFlags RemoteEndpoint
	}
	if ip := x.str("IPAddress"); ip != "" {
		e.IP = snapshot.ParseAddr(ip)
		if pl, ok := x.num("PrefixLength"); ok {
			d.PrefixLength = int(pl)
		}
	}
	for _, ipc := range x.list("IpConfigurations") {
		a := addrOf(ipc.first("IpAddress"))
		if a.IsValid() && (!e.IP.IsValid() || a.Is4() && !e.IP.Is4()) {
			if e.IP.IsValid() && e.IP.Is6() {
				d.IPv6 = e.IP
			}
			e.IP = a
			if pl, ok := ipc.num("PrefixLength"); ok {
				d.PrefixLength = int(pl)
			}
		} else if a.IsValid() && a.Is6() && e.IP.Is4() && !d.IPv6.IsValid() {
			d.IPv6 = a
		}
	}
	if dns := x.child("Dns"); dns != nil {
		if len(d.DNSServers) == 0 {
			d.DNSServers = dns.strs("ServerList")
		}
		if len(d.DNSSuffixes) == 0 {
			d.DNSSuffixes = dns.strs("Search")
		}
	}
	for _, r := range x.list("Routes") {
		if dst := snapshot.ParsePrefix(r.str("DestinationPrefix")); dst.IsValid() && dst.Bits() == 0 && !d.Gateway.IsValid() {
			d.Gateway = snapshot.ParseAddr(r.str("NextHop"))
		}
	}
	for _, a := range x.child("Resources").list("Allocators") {
		if strings.EqualFold(a.str("Tag"), "Endpoint Port") {
			d.VFPPortID = snapshot.NormalizeGUID(a.str("EndpointPortGuid"))
		}
	}
	// The policies are gathered on the stack and copied out only when
	// they are not the shared list of a remote endpoint.
	var objBuf [4]obj
	var policyBuf [4]snapshot.Policy
	policies := policyBuf[:0]
	listed, _ := x.first("Policies")
	for _, po := range appendObjects(objBuf[:0], listed) {
		policies = append(policies, policyOf(po))
	}
	for _, p := range policies {
		s := settingsOf(p)
		switch p.Kind() {
		case "ProviderAddress":
			e.ProviderAddress = snapshot.ParseAddr(s.str("PA", "ProviderAddress"))
		case "OutBoundNAT":
			nat := &snapshot.OutboundNAT{
				VIP:          s.str("VIP", "VirtualIP"),
				Exceptions:   s.strs("ExceptionList", "Exceptions"),
				Destinations: s.strs("Destinations"),
			}
			// A Destinations-only OutBoundNAT is loopback DSR or DNS SNAT,
			// not the pod's SNAT policy: keep it apart.
			if len(nat.Destinations) > 0 && len(nat.Exceptions) == 0 {
				d.NATDestinations = append(d.NATDestinations, nat.Destinations...)
			} else {
				d.OutboundNAT = nat
			}
		case "SDNRoute":
			need, _ := s.boolean("NeedEncap")
			d.Routes = append(d.Routes, snapshot.EndpointRoute{DestinationPrefix: s.str("DestinationPrefix"), NeedEncap: need})
		}
	}
	// A remote endpoint's only policy is its ProviderAddress, now a typed
	// field: dropping the generic copy keeps the tens of thousands of remote
	// endpoints of a large cluster from holding a JSON tree each.
	if e.IsRemote {
		for i := range policies {
			if policies[i].Kind() == "ProviderAddress" {
				policies[i].Settings = nil
			}
		}
		if len(policies) == 1 && policies[0].Settings == nil {
			if shared, ok := snapshot.ProviderAddressOnly(policies[0].Type); ok {
				d.Policies = shared
				return e
			}
		}
	}
	if len(policies) > 0 {
		d.Policies = append(make([]snapshot.Policy, 0, len(policies)), policies...)
	}
	return e
}

// endpointSlab hands out the endpoints of one list, and their references,
// from shared arrays (nextIn, refSlabSize): they live as long as the
// model, and allocated one by one amid the decoding's short-lived values
// they would leave the heap's spans part empty once those are collected.
// One list's builder uses it (no lock).
type endpointSlab struct {
	eps  []snapshot.Endpoint
	refs []snapshot.Ref
	strs strArena // the strings of each endpoint alone: ID, name, MAC
}

const refSlabSize = 64 // 1,536 bytes, a size class

// endpoint is a zero endpoint; a new one without a slab.
func (s *endpointSlab) endpoint() *snapshot.Endpoint {
	if s == nil {
		return &snapshot.Endpoint{}
	}
	return nextIn(&s.eps)
}

// ref is the list of one reference, full (an append copies it).
func (s *endpointSlab) ref(r snapshot.Ref) []snapshot.Ref {
	if s == nil {
		return []snapshot.Ref{r}
	}
	if len(s.refs) == cap(s.refs) {
		s.refs = make([]snapshot.Ref, 0, refSlabSize)
	}
	s.refs = append(s.refs, r)
	n := len(s.refs)
	return s.refs[n-1 : n : n]
}

// str is s in the slab's strings; s itself without a slab.
func (s *endpointSlab) str(v string) string {
	if s == nil {
		return v
	}
	return s.strs.keep(v)
}

// guid is the endpoint ID v (x.first's answer) stands for, in the slab's
// strings (keptGUID).
func (s *endpointSlab) guid(v any, _ bool) string {
	if s == nil {
		return keptGUID(nil, v)
	}
	return keptGUID(&s.strs, v)
}

// addrOf is the address v (o.first's answer) stands for: one left raw
// by the reader is read from its bytes.
func addrOf(v any, _ bool) netip.Addr {
	if r, ok := v.(*rawText); ok {
		return snapshot.ParseAddrBytes(r.b)
	}
	return snapshot.ParseAddr(asString(v))
}

// keptGUID is the ID v stands for, normalized, in a when set: one left
// raw by the reader (streamOptions.raw) is copied from its bytes once.
func keptGUID(a *strArena, v any) string {
	if r, ok := v.(*rawText); ok && snapshot.IsNormalGUID(r.b) {
		if a == nil {
			return string(r.b)
		}
		return a.keepBytes(r.b)
	}
	id := snapshot.NormalizeGUID(asString(v))
	if a == nil {
		return id
	}
	return a.keep(id)
}

// mac is the MAC v stands for, normalized, in the slab's strings: in the
// usual forms it is normalized on the stack and kept once.
func (s *endpointSlab) mac(v any, _ bool) string {
	var out [17]byte
	ok := false
	if r, raw := v.(*rawText); raw {
		ok = snapshot.NormalMAC(&out, r.b)
	} else if t, str := v.(string); str {
		ok = snapshot.NormalMAC(&out, strings.TrimSpace(t))
	}
	switch {
	case !ok:
		return s.str(snapshot.NormalizeMAC(asString(v)))
	case s == nil:
		return string(out[:])
	}
	return s.strs.keepBytes(out[:])
}

// keepsNoTree says an endpoint holds nothing of its JSON tree but strings
// and numbers: no policy kept its settings (a remote endpoint's
// ProviderAddress is typed), so the tree can be read into again.
func keepsNoTree(e *snapshot.Endpoint) bool {
	for _, p := range e.Policies {
		if p.Settings != nil {
			return false
		}
	}
	return true
}

// ParseLoadBalancers parses V2 HostComputeLoadBalancers.
func ParseLoadBalancers(data []byte, file string) ([]*snapshot.LoadBalancer, error) {
	var ids snapshot.EndpointIDTable
	return parseEach(data, func(o obj, i int) *snapshot.LoadBalancer {
		return loadBalancerWith(o, snapshot.Ref{File: file, Index: i}, &ids, nil)
	})
}

// loadBalancerOf builds a load balancer whose backends are in a table of
// their own.
func loadBalancerOf(o obj, ref snapshot.Ref) *snapshot.LoadBalancer {
	return loadBalancerWith(o, ref, &snapshot.EndpointIDTable{}, nil)
}

// loadBalancerWith is loadBalancerOf keeping the backend IDs in ids, the
// table of the list's distinct backends. The load balancer and what it
// keeps come from slab, when set (a list's, lbSlab).
func loadBalancerWith(o obj, ref snapshot.Ref, ids *snapshot.EndpointIDTable, slab *lbSlab) *snapshot.LoadBalancer {
	lb := slab.loadBalancer()
	*lb = snapshot.LoadBalancer{
		ID:           slab.guid(o.first("ID", "Id")),
		SourceVIP:    o.str("SourceVIP"),
		FrontendVIPs: slab.strings(o, "FrontendVIPs", true),
		Ref:          ref,
		Unknown:      unknownFields(o),
	}
	lb.EndpointIDs = slab.endpointIDs(o, "HostComputeEndpoints", ids, "")
	lb.Flags, _ = o.num("Flags")
	var pmBuf [4]snapshot.PortMapping
	pms := pmBuf[:0]
	for _, pm := range o.list("PortMappings") {
		m := snapshot.PortMapping{Protocol: protocolNumber(pm.str("Protocol"))}
		m.InternalPort, _ = pm.num("InternalPort")
		m.ExternalPort, _ = pm.num("ExternalPort")
		m.DistributionType, _ = pm.num("DistributionType")
		m.Flags, _ = pm.num("Flags")
		pms = append(pms, m)
	}
	if len(pms) > 0 {
		lb.PortMappings = slab.portMappings(pms)
	}
	return lb
}

// lbSlab hands out the load balancers of one list and what they keep (their
// backend and frontend lists, port mappings, addresses) from shared blocks,
// as endpointSlab does for endpoints: 5,000 load balancers listing 127,000
// backends in a large cluster's node. One list's builder uses it (no lock).
// Each list it returns has its length as capacity: an append copies it.
type lbSlab struct {
	lbs  []snapshot.LoadBalancer
	strs []string
	pos  []uint32 // the backends' positions in their table
	pms  []snapshot.PortMapping
	text strArena
}

const (
	lbSlabStrings   = 4096
	lbSlabPositions = 16384
	lbSlabPortMaps  = 256
	lbSlabLongSlice = 256 // longer lists keep their own
)

// loadBalancer is a zero load balancer; a new one without a slab.
func (s *lbSlab) loadBalancer() *snapshot.LoadBalancer {
	if s == nil {
		return &snapshot.LoadBalancer{}
	}
	return nextIn(&s.lbs)
}

// guid is the ID v (o.first's answer) stands for, in the slab's text
// (keptGUID).
func (s *lbSlab) guid(v any, _ bool) string {
	if s == nil {
		return keptGUID(nil, v)
	}
	return keptGUID(&s.text, v)
}

// strings is o.strs(key), in the slab when there is one and the list is
// not long, its strings copied into the slab's text when text is set (read
// for this object alone: frontend addresses, not the shared backend IDs).
func (s *lbSlab) strings(o obj, key string, text bool) []string {
	v, _ := o.first(key)
	t, list := v.([]any)
	if s == nil || !list || len(t) == 0 || len(t) > lbSlabLongSlice {
		return o.strs(key)
	}
	if cap(s.strs)-len(s.strs) < len(t) {
		s.strs = make([]string, 0, lbSlabStrings)
	}
	n := len(s.strs)
	out := appendStringsOf(s.strs[n:n], v)
	if cap(out) != cap(s.strs)-n {
		return out // a value split in more than the list held: moved out
	}
	s.strs = s.strs[:n+len(out)]
	out = out[:len(out):len(out)]
	if text {
		for i, x := range out {
			out[i] = s.text.keep(x)
		}
	}
	return out
}

// endpointIDs is the backends o lists under key, read as o.strs reads
// them, each up to its last '/' when cut is set (a V1 reference), as
// positions in ids: built as the list is read, with no list of strings
// between. The positions are in the slab when there is one and the list is
// not long.
func (s *lbSlab) endpointIDs(o obj, key string, ids *snapshot.EndpointIDTable, cut string) snapshot.EndpointIDs {
	v, _ := o.first(key)
	n := 0
	switch t := v.(type) {
	case []any:
		n = len(t)
	case *rawTexts:
		n = len(t.items)
	}
	var pos []uint32
	if s != nil && n > 0 && n <= lbSlabLongSlice {
		if cap(s.pos)-len(s.pos) < n {
			s.pos = make([]uint32, 0, lbSlabPositions)
		}
		pos = s.pos[len(s.pos):len(s.pos)]
	}
	room := cap(pos)
	add := func(id string) {
		if cut != "" {
			id = id[strings.LastIndex(id, cut)+len(cut):]
		}
		pos = append(pos, ids.Add(snapshot.NormalizeGUID(id)))
	}
	if r, ok := v.(*rawTexts); ok && cut == "" {
		// The usual backend, an ID as HNS writes it, is looked up by its
		// bytes; any other is read as eachStringOf reads it.
		ids.Warm(r.items)
		for _, b := range r.items {
			if snapshot.IsNormalGUID(b) && bytes.IndexByte(b, ',') < 0 {
				pos = append(pos, ids.AddBytes(b))
			} else {
				eachStringOf(string(b), add)
			}
		}
	} else {
		eachStringOf(v, add)
	}
	if len(pos) == 0 {
		return snapshot.EndpointIDs{}
	}
	if room > 0 && cap(pos) == room { // still in the slab's block
		s.pos = s.pos[:len(s.pos)+len(pos)]
	}
	return ids.List(pos[:len(pos):len(pos)])
}

// portMappings is a copy of v in the slab; a copy of its own without one.
func (s *lbSlab) portMappings(v []snapshot.PortMapping) []snapshot.PortMapping {
	if s == nil || len(v) > lbSlabPortMaps/4 {
		return append([]snapshot.PortMapping(nil), v...)
	}
	if cap(s.pms)-len(s.pms) < len(v) {
		s.pms = make([]snapshot.PortMapping, 0, lbSlabPortMaps)
	}
	n := len(s.pms)
	s.pms = append(s.pms, v...)
	return s.pms[n:len(s.pms):len(s.pms)]
}

// ParsePolicyLists parses V1 policy lists; ELB policies become load balancers.
func ParsePolicyLists(data []byte, file string) ([]*snapshot.LoadBalancer, error) {
	var ids snapshot.EndpointIDTable
	return parseEach(data, func(o obj, i int) *snapshot.LoadBalancer {
		return policyListWith(o, snapshot.Ref{File: file, Index: i}, &ids)
	})
}

// policyListWith builds a V1 policy list, keeping the IDs of the endpoints
// it references in ids, the table of the list's distinct backends.
func policyListWith(o obj, ref snapshot.Ref, ids *snapshot.EndpointIDTable) *snapshot.LoadBalancer {
	lb := &snapshot.LoadBalancer{ID: snapshot.NormalizeGUID(o.str("ID", "Id")), Ref: ref, Unknown: unknownFields(o)}
	lb.State, _ = o.num("State")
	lb.EndpointIDs = (*lbSlab)(nil).endpointIDs(o, "References", ids, "/")
	for _, po := range o.list("Policies") {
		p := policyOf(po)
		if p.Kind() != "ELB" {
			continue
		}
		s := settingsOf(p)
		lb.SourceVIP = s.str("SourceVIP")
		lb.FrontendVIPs = s.strs("VIPs")
		if dsr, _ := s.boolean("IsDSR"); dsr {
			lb.Flags |= 1
		}
		m := snapshot.PortMapping{Protocol: protocolNumber(s.str("Protocol"))}
		m.InternalPort, _ = s.num("InternalPort")
		m.ExternalPort, _ = s.num("ExternalPort")
		if ilb, _ := s.boolean("ILB"); ilb {
			m.Flags |= 1
		}
		if lr, _ := s.boolean("LocalRoutedVip"); lr {
			m.Flags |= 2
		}
		lb.PortMappings = append(lb.PortMappings, m)
	}
	return lb
}

func protocolNumber(s string) int64 {
	switch strings.ToUpper(s) {
	case "TCP":
		return 6
	case "UDP":
		return 17
	}
	n, _ := asInt(s)
	return n
}

// ParseNamespaces parses V2 HostComputeNamespaces.
func ParseNamespaces(data []byte, file string) ([]*snapshot.Namespace, error) {
	return parseEach(data, func(o obj, i int) *snapshot.Namespace { return namespaceOf(o, snapshot.Ref{File: file, Index: i}) })
}

func namespaceOf(o obj, ref snapshot.Ref) *snapshot.Namespace {
	ns := &snapshot.Namespace{ID: snapshot.NormalizeGUID(o.str("ID", "Id")), Type: o.str("Type"), Ref: ref, Unknown: unknownFields(o)}
	ns.CompartmentID, _ = o.num("NamespaceId", "CompartmentId")
	for _, r := range o.list("Resources") {
		if strings.EqualFold(r.str("Type"), "Endpoint") {
			ns.EndpointIDs = append(ns.EndpointIDs, snapshot.NormalizeGUID(r.child("Data").str("ID", "Id")))
		}
	}
	// V1 (Get-HnsNamespace): ResourceList of {Type, Id}.
	for _, r := range o.list("ResourceList") {
		if strings.EqualFold(r.str("Type"), "Endpoint") {
			ns.EndpointIDs = append(ns.EndpointIDs, snapshot.NormalizeGUID(r.str("Id", "ID")))
		}
	}
	return ns
}
