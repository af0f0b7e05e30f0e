package formats

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/wincni/diag/bundle"
	"github.com/wincni/diag/snapshot"
)

// ParseError is a bundle file that exists but cannot be understood.
type ParseError struct {
	Bundle string
	File   string
	Err    error
}

func (e *ParseError) Error() string {
	if e.File == "" || e.File == filepath.Base(e.Bundle) {
		return fmt.Sprintf("%s: %v", e.Bundle, e.Err)
	}
	return fmt.Sprintf("%s: %s: %v", e.Bundle, e.File, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }

// BadInput marks the error as the input's, not diag's (exit 2).
func (e *ParseError) BadInput() bool { return true }

// ErrUnidentified means no file of the input was recognised.
var ErrUnidentified = errors.New("cannot identify the input")

// Load builds the snapshot of an input: a diag bundle, a collectlogs.ps1
// output, or loose files (a paste, a JSON dump), told apart by content.
// Missing files are normal (the rules that need them are skipped); a file
// that is present but malformed is an error naming the file.
func Load(b *bundle.Bundle) (*snapshot.Snapshot, error) { return LoadWith(b, DefaultLimits) }

// LoadWith is Load with the given limits on what one part may hold.
func LoadWith(b *bundle.Bundle, lim Limits) (*snapshot.Snapshot, error) {
	s := &snapshot.Snapshot{Source: b.Path(), SourceKind: b.Kind(), Manifest: b.Manifest, Inputs: map[snapshot.Input]string{}}
	l := &loader{b: b, s: s, lim: lim}
	switch {
	case isDiagLayout(b):
		s.Format = snapshot.FormatBundle
		loadDiag(l)
	case isCollectlogs(b):
		s.Format = snapshot.FormatCollectlogs
		loadCollectlogs(l)
	default:
		s.Format = snapshot.FormatLoose
		loadLoose(l)
	}
	if l.err != nil {
		return nil, l.err
	}
	if m := b.Mismatches(); len(m) > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("warning: %d file(s) differ from the checksums in manifest.json (%s): the bundle was damaged or edited after it was collected; the findings rest on the files as they are now (diag bundle verify lists every difference)",
			len(m), strings.Join(firstN(m, 5), ", ")))
	}
	linkEndpoints(s)
	if !l.idsShared {
		shareEndpointIDs(s)
	}
	linkVFPPorts(s)
	s.Derive()
	noteHidden(s)
	markUnjudged(s)
	return s, nil
}

func firstN(xs []string, n int) []string {
	if len(xs) > n {
		return append(xs[:n:n], fmt.Sprintf("%d more", len(xs)-n))
	}
	return xs
}

// isDiagLayout: a manifest, or any folder of the bundle layout.
func isDiagLayout(b *bundle.Bundle) bool {
	if hasLayoutFolder(b) {
		return true
	}
	// A manifest alone makes a diag bundle, unless what it lists is
	// collectlogs output or loose files (what diag bundle redact writes
	// from those): then the files say what they are.
	return b.Manifest != nil && !isCollectlogs(b) && !hasLooseFiles(b)
}

// hasLooseFiles: entries other than the manifest at the top level.
func hasLooseFiles(b *bundle.Bundle) bool {
	for _, name := range b.Names() {
		if name != bundle.ManifestPath && !strings.Contains(name, "/") && name != "diag.log" {
			return true
		}
	}
	return false
}

// hasLayoutFolder: an entry in one of the bundle layout's folders.
func hasLayoutFolder(b *bundle.Bundle) bool {
	for _, name := range b.Names() {
		top, _, nested := strings.Cut(name, "/")
		if nested && layoutFolder(top) {
			return true
		}
	}
	return false
}

// loadDiag reads the fixed paths of the bundle layout (DESIGN.md).
func loadDiag(l *loader) {
	s, b := l.s, l.b
	loadVFPFiles(l, append([]string{"vfp/ports.txt"}, b.Glob("vfp/port-*.txt")...))
	v2nets := loadStream(l, snapshot.FileV2Networks, snapshot.InputHNSNetworks, networkOf, ParseNetworks)
	v1nets := loadStream(l, snapshot.FileV1Networks, snapshot.InputHNSNetworks, networkOf, ParseNetworks)
	s.Networks = mergeNetworks(s, v2nets, v1nets)

	// The two biggest lists are read side by side with the rest; their
	// results are taken in the usual order.
	var v2slab endpointSlab
	v2epsRead := startStream(l, snapshot.FileV2Endpoints, func(o obj, ref snapshot.Ref) *snapshot.Endpoint { return endpointWith(o, ref, &v2slab) },
		streamOptions[snapshot.Endpoint]{reuse: keepsNoTree, raw: []string{"ID", "MacAddress"}, rawIn: endpointRawIn, elementSize: 256})
	var lbSlab lbSlab
	backends := &snapshot.EndpointIDTable{}
	backends.Grow(backendsHint(b, l.lim))
	loadBalancer := func(o obj, ref snapshot.Ref) *snapshot.LoadBalancer {
		return loadBalancerWith(o, ref, backends, &lbSlab)
	}
	lbsRead := startStream(l, snapshot.FileV2LoadBalancers, loadBalancer,
		streamOptions[snapshot.LoadBalancer]{reuse: func(*snapshot.LoadBalancer) bool { return true }, raw: []string{"ID", "HostComputeEndpoints"}})
	v2eps := finishStream(l, v2epsRead, snapshot.InputHNSEndpoints, ParseEndpoints)
	v1eps := loadStream(l, snapshot.FileV1Endpoints, snapshot.InputHNSEndpoints, endpointOf, ParseEndpoints)
	s.Endpoints = mergeEndpoints(v2eps, v1eps)

	s.LoadBalancers = finishStream(l, lbsRead, snapshot.InputHNSLoadBalancers, ParseLoadBalancers)
	if !b.Has(snapshot.FileV2LoadBalancers) {
		s.LoadBalancers = loadStream(l, snapshot.FileV1PolicyLists, snapshot.InputHNSLoadBalancers,
			func(o obj, ref snapshot.Ref) *snapshot.LoadBalancer { return policyListWith(o, ref, backends) }, ParsePolicyLists)
	}
	// The backends share the endpoints' IDs now, not at the end: the
	// table's own copies and its slots are then let go before the
	// Kubernetes lists are read.
	shareEndpointIDs(s)
	l.idsShared = true
	s.Namespaces = loadStream(l, snapshot.FileV2Namespaces, snapshot.InputHNSNamespaces, namespaceOf, ParseNamespaces)

	s.Adapters = loadList(l, snapshot.FileAdapters, snapshot.InputHostAdapters, func(d []byte, _ string) ([]*snapshot.HostAdapter, error) { return ParseAdapters(d) })
	s.Routes = loadList(l, snapshot.FileRoutes, snapshot.InputHostRoutes, func(d []byte, _ string) ([]*snapshot.HostRoute, error) { return ParseRoutes(d) })
	s.KubeNodes = loadStreamReusing(l, snapshot.FileKubeNodes, snapshot.InputKubeNodes, func(o obj, _ snapshot.Ref) *snapshot.KubeNode { return kubeNodeOf(o) },
		func(d []byte, _ string) ([]*snapshot.KubeNode, error) { return ParseKubeNodes(d) })
	var svcSlab serviceSlab
	s.Services = loadStreamReusing(l, snapshot.FileKubeServices, snapshot.InputKubeServices, func(o obj, _ snapshot.Ref) *snapshot.Service { return serviceWith(o, &svcSlab) },
		func(d []byte, _ string) ([]*snapshot.Service, error) { return ParseServices(d) })
	loadCalicoIPAM(l)
	s.EndpointSlices = loadList(l, snapshot.FileEndpointSlices, snapshot.InputEndpointSlices, func(d []byte, _ string) ([]*snapshot.EndpointSlice, error) { return ParseEndpointSlices(d) })
	s.Pods = loadStream(l, snapshot.FileKubePods, snapshot.InputKubePods, func(o obj, _ snapshot.Ref) *snapshot.Pod { return podOf(o) },
		func(d []byte, _ string) ([]*snapshot.Pod, error) { return ParseKubePods(d) })
	if data, ok := l.read(snapshot.FileOS); ok {
		if s.OS, l.err = ParseOS(data); l.err == nil && s.OS != nil {
			s.Inputs[snapshot.InputOS] = snapshot.FileOS
		}
		l.wrap(snapshot.FileOS)
	}
	if data, ok := l.read(snapshot.FileHNSFeatures); ok {
		s.HNSFeatures, l.err = ParseHNSFeatures(data)
		l.wrap(snapshot.FileHNSFeatures)
	}
	if data, ok := l.read(snapshot.FileHNSGlobals); ok {
		s.HNSVersion, l.err = ParseHNSGlobals(data)
		l.wrap(snapshot.FileHNSGlobals)
	}
	if f := s.HNSFeatures; f != nil && s.HNSVersion == nil && f.Version.Major > 0 {
		v := f.Version
		s.HNSVersion = &v
	}
	if data, ok := l.read(snapshot.FileFirewall); ok {
		if s.Firewall, l.err = ParseFirewall(data, snapshot.FileFirewall); l.err == nil && s.Firewall != nil {
			s.Inputs[snapshot.InputFirewall] = snapshot.FileFirewall
		}
		l.wrap(snapshot.FileFirewall)
	}
	if data, ok := l.read(snapshot.FilePortRanges); ok {
		if s.PortRanges, l.err = ParsePortRanges(data, snapshot.FilePortRanges); l.err == nil && s.PortRanges != nil {
			s.Inputs[snapshot.InputPortRanges] = snapshot.FilePortRanges
		}
		l.wrap(snapshot.FilePortRanges)
	}
	if data, ok := l.read(snapshot.FileKubeProxyCmd); ok {
		s.KubeProxy, l.err = ParseKubeProxyCmdline(data, snapshot.FileKubeProxyCmd)
		s.Inputs[snapshot.InputKubeProxy] = snapshot.FileKubeProxyCmd
		l.wrap(snapshot.FileKubeProxyCmd)
	}
	loadCNIFiles(l, b.Glob("config/cni/*"))
	if data, ok := l.read(snapshot.FileFlannelNetConf); ok {
		if s.Flannel, l.err = ParseFlannelNetConf(data, snapshot.FileFlannelNetConf); l.err == nil {
			s.Inputs[snapshot.InputFlannelConfig] = snapshot.FileFlannelNetConf
		}
		l.wrap(snapshot.FileFlannelNetConf)
	}
	loadLinuxFiles(l, b.Glob("linux/*.json"))
	loadLogs(l)
}

// endpointRawIn: an endpoint's IP configurations' addresses are read
// from the reader's bytes (streamOptions.rawIn).
var endpointRawIn = [2]string{"IpConfigurations", "IpAddress"}

// backendsHint is about how many distinct backends the load balancers of
// a bundle name, for the size of their table: no more than its endpoints,
// which take 256 bytes or more each in HNS's JSON, nor than the
// references the load balancers' list can hold (38 bytes each at least),
// nor than the objects a list may have.
func backendsHint(b *bundle.Bundle, lim Limits) int {
	eps, lbs := b.Size(snapshot.FileV2Endpoints), b.Size(snapshot.FileV2LoadBalancers)
	if eps <= 0 || lbs <= 0 {
		return 0
	}
	return int(min(eps/256, lbs/38, int64(lim.MaxObjects)))
}

// loadLogs scans the component logs of logs/ for the events rules read,
// line by line: a log of any size costs one buffer. One larger than the
// part limit is scanned up to the limit, with a note.
func loadLogs(l *loader) {
	for _, name := range l.b.Names() {
		comp := logComponent(name)
		if comp == "" || l.err != nil {
			continue
		}
		rc, err := l.b.Open(name)
		if err != nil {
			l.err = err
			return
		}
		limit := l.lim.capFor(name)
		lf, err := scanLog(io.LimitReader(rc, limit), name, comp)
		rc.Close()
		if err != nil {
			l.err = &ParseError{Bundle: l.b.Path(), File: name, Err: err}
			return
		}
		if size := l.b.Size(name); size > limit {
			l.skip(name, size, "scanned up to the "+byteSize(limit)+" limit for one part")
		}
		l.s.Logs = append(l.s.Logs, lf)
		l.s.Inputs[snapshot.InputLogs] = "logs/"
	}
	if data, ok := l.read(snapshot.FileHNSEvents); ok {
		lf, err := parseHNSEvents(data)
		if err != nil {
			l.err = err
			l.wrap(snapshot.FileHNSEvents)
			return
		}
		if lf != nil {
			l.s.Logs = append(l.s.Logs, lf)
			l.s.Inputs[snapshot.InputLogs] = "logs/"
		}
	}
}

// loader threads the first error through a sequence of reads.
type loader struct {
	b       *bundle.Bundle
	s       *snapshot.Snapshot
	lim     Limits
	err     error
	skipped []string // parts skipped for a limit, with why (also in Notes)
	// idsShared: the layout's loader ran shareEndpointIDs once it had
	// both lists.
	idsShared bool
}

// read reads a part whole, within its limit: a part over it is skipped
// with a note (the rest of the input is still read).
func (l *loader) read(name string) ([]byte, bool) {
	if l.err != nil || !l.b.Has(name) {
		return nil, false
	}
	limit := l.lim.capFor(name)
	if size := l.b.Size(name); size > limit {
		l.skip(name, size, "larger than the "+byteSize(limit)+" limit for a part read whole")
		return nil, false
	}
	data, err := l.b.ReadFileMax(name, limit)
	switch {
	case errors.Is(err, bundle.ErrBeyondMax):
		// The header said less: a zip entry that lies about its size.
		l.skip(name, 0, "more than the "+byteSize(limit)+" limit for a part read whole")
		return nil, false
	case errors.Is(err, fs.ErrNotExist):
		return nil, false
	case err != nil:
		l.err = err
		return nil, false
	}
	if looksJSON(data) {
		if err := checkJSONValues(data, l.lim.MaxJSONValue); err != nil {
			l.skip(name, int64(len(data)), err.Error())
			return nil, false
		}
	}
	return data, true
}

// skippedPart reports whether a part was skipped for a limit.
func (l *loader) skippedPart(name string) bool {
	for _, s := range l.skipped {
		if strings.HasPrefix(s, "skipped "+name+" ") || strings.HasPrefix(s, "skipped "+name+":") {
			return true
		}
	}
	return false
}

// skip records a part skipped for a limit.
func (l *loader) skip(name string, size int64, why string) {
	note := skipNote(name, size, why)
	l.skipped = append(l.skipped, note)
	l.s.Notes = append(l.s.Notes, note)
}

// looksJSON: the first non-space byte opens an array or an object.
func looksJSON(data []byte) bool {
	for _, c := range data {
		switch c {
		case ' ', '\t', '\r', '\n', 0xEF, 0xBB, 0xBF:
			continue
		case '[', '{':
			return true
		}
		return false
	}
	return false
}

func (l *loader) wrap(name string) {
	if l.err != nil {
		var pe *ParseError
		var be *bundle.Error
		if !errors.As(l.err, &pe) && !errors.As(l.err, &be) {
			l.err = &ParseError{Bundle: l.b.Path(), File: name, Err: l.err}
		}
	}
}

// loadStream reads a list file straight from the bundle, one element at a
// time (parseEachReader): the endpoints and load balancers of a node in a
// large cluster are tens of megabytes. UTF-16 files, other shapes and
// malformed ones go through parse on the whole file, which also words the
// error.
func loadStream[T any](l *loader, name string, in snapshot.Input, build func(obj, snapshot.Ref) *T, parse func([]byte, string) ([]*T, error)) []*T {
	return finishStream(l, startStream(l, name, build, streamOptions[T]{}), in, parse)
}

// loadStreamReusing is loadStream of a list whose builder keeps nothing of
// an element's tree but strings and numbers (streamOptions.reuse).
func loadStreamReusing[T any](l *loader, name string, in snapshot.Input, build func(obj, snapshot.Ref) *T, parse func([]byte, string) ([]*T, error)) []*T {
	return finishStream(l, startStream(l, name, build, streamOptions[T]{reuse: func(*T) bool { return true }}), in, parse)
}

// streamed is a list file being read (startStream) for finishStream.
type streamed[T any] struct {
	name    string
	started bool // the file is there and was opened
	done    chan struct{}
	out     []*T
	err     error
	tooMany bool
}

// startStream reads and builds a list file's elements in a goroutine: the
// big files of a bundle (endpoints, load balancers, Kubernetes lists) are
// decoded side by side on a machine with more than one CPU. Everything
// that touches the loader's state waits for finishStream, which is called
// in the order the files are loaded, so the snapshot is the same.
func startStream[T any](l *loader, name string, build func(obj, snapshot.Ref) *T, opt streamOptions[T]) *streamed[T] {
	st := &streamed[T]{name: name, done: make(chan struct{})}
	if l.err != nil || !l.b.Has(name) {
		close(st.done)
		return st
	}
	rc, err := l.b.Open(name)
	if err != nil {
		st.err = err
		close(st.done)
		return st
	}
	st.started = true
	opt.size = l.b.Size(name)
	opt.maxCount = int64(l.lim.MaxObjects)
	limit, maxObjects := l.lim.MaxJSONValue, l.lim.MaxObjects
	go func() {
		defer close(st.done)
		defer rc.Close()
		st.out, st.err = parseEachReaderWith(newJSONGuard(rc, limit), func(o obj, i int) *T {
			if i >= maxObjects {
				st.tooMany = true
				return nil
			}
			return build(o, snapshot.Ref{File: name, Index: i})
		}, opt)
	}()
	return st
}

func finishStream[T any](l *loader, st *streamed[T], in snapshot.Input, parse func([]byte, string) ([]*T, error)) []*T {
	<-st.done
	name := st.name
	if l.err != nil || !l.b.Has(name) {
		return nil
	}
	if !st.started {
		return loadList(l, name, in, parse)
	}
	out, err := st.out, st.err
	switch {
	case errors.Is(err, errPartLimit):
		l.skip(name, l.b.Size(name), err.Error())
		return nil
	case err != nil:
		return loadList(l, name, in, parse)
	}
	if st.tooMany {
		out = slices.DeleteFunc(out, func(t *T) bool { return t == nil })
		l.s.Notes = append(l.s.Notes, fmt.Sprintf("%s: only its first %d objects were read (the limit); %s raises it", name, l.lim.MaxObjects, LimitFlag))
	}
	if _, seen := l.s.Inputs[in]; !seen {
		l.s.Inputs[in] = name
	}
	return out
}

func loadList[T any](l *loader, name string, in snapshot.Input, parse func([]byte, string) ([]T, error)) []T {
	data, ok := l.read(name)
	if !ok {
		return nil
	}
	out, err := parse(data, name)
	if err != nil {
		l.err = err
		l.wrap(name)
		return nil
	}
	if _, seen := l.s.Inputs[in]; !seen {
		l.s.Inputs[in] = name
	}
	return out
}

// mergeByID joins the V2 and V1 views of the same objects: V2 is the
// primary, and join adds what only V1 carries. V1 objects without a V2 twin
// are kept as they are.
func mergeByID[T any](v2, v1 []*T, id func(*T) string, join func(into, from *T)) []*T {
	if len(v2) == 0 {
		return v1
	}
	if len(v1) == 0 {
		return v2 // no index of the V2 objects for nothing
	}
	byID := make(map[string]*T, len(v2))
	for _, o := range v2 {
		if k := id(o); k != "" {
			byID[k] = o
		}
	}
	out := v2
	for _, old := range v1 {
		if o, ok := byID[id(old)]; ok && id(old) != "" {
			join(o, old)
		} else {
			out = append(out, old)
		}
	}
	return out
}

// mergeNetworks: V1 adds ManagementIP, DrMacAddress, extensions, LayeredOn.
func mergeNetworks(s *snapshot.Snapshot, v2, v1 []*snapshot.Network) []*snapshot.Network {
	return mergeByID(v2, v1, func(n *snapshot.Network) string { return n.ID }, func(n, old *snapshot.Network) {
		n.Refs = append(n.Refs, old.Refs...)
		n.V1ManagementIP = old.V1ManagementIP
		if n.DrMAC == "" {
			n.DrMAC = old.DrMAC
		}
		if len(n.Extensions) == 0 {
			n.Extensions = old.Extensions
		}
		if n.LayeredOn == "" {
			n.LayeredOn = old.LayeredOn
		}
		if n.AdapterName == "" {
			n.AdapterName = old.AdapterName
		}
		if old.V1ManagementIP.IsValid() {
			n.ManagementIP, n.ManagementIPFile, n.ManagementIPField = old.ManagementIP, old.ManagementIPFile, old.ManagementIPField
		}
		if n.V2ProviderAddress.IsValid() && n.V1ManagementIP.IsValid() && n.V2ProviderAddress != n.V1ManagementIP {
			s.Notes = append(s.Notes, fmt.Sprintf("network %s: V2 ProviderAddress %s differs from V1 ManagementIP %s", n.Name, n.V2ProviderAddress, n.V1ManagementIP))
		}
	})
}

// mergeEndpoints: V1 adds State, the network name and the VFP port.
func mergeEndpoints(v2, v1 []*snapshot.Endpoint) []*snapshot.Endpoint {
	return mergeByID(v2, v1, func(e *snapshot.Endpoint) string { return e.ID }, func(e, old *snapshot.Endpoint) {
		e.Refs = append(e.Refs, old.Refs...)
		// Through DetailCopy: a bundle holds both lists, and the remote
		// endpoints keep sharing their details once merged.
		if e.State == 0 && old.State != 0 || e.NetworkName == "" && old.NetworkName != "" || e.VFPPortID == "" && old.VFPPortID != "" {
			d := e.DetailCopy()
			if d.State == 0 {
				d.State = old.State
			}
			if d.NetworkName == "" {
				d.NetworkName = old.NetworkName
			}
			if d.VFPPortID == "" {
				d.VFPPortID = old.VFPPortID
			}
			e.SetDetail(&d)
		}
	})
}

// linkEndpoints fills in the network name of endpoints that only carry the
// network's ID (all V2 endpoints).
func linkEndpoints(s *snapshot.Snapshot) {
	byID := make(map[string]*snapshot.Network, len(s.Networks))
	for _, n := range s.Networks {
		byID[n.ID] = n
	}
	for _, e := range s.Endpoints {
		if n, ok := byID[e.NetworkID]; ok && e.NetworkName == "" {
			d := e.DetailCopy()
			d.NetworkName = n.Name
			e.SetDetail(&d)
		}
	}
}

// loadVFPFiles reads vfpctrl dumps. A file named port-<name>.txt holds one
// port's dump; the others say which port each section is for.
func loadVFPFiles(l *loader, files []string) {
	ports := map[string]*snapshot.VFPPort{}
	for _, name := range files {
		data, ok := l.read(name)
		if !ok {
			if l.err != nil {
				return
			}
			continue
		}
		text, err := DecodeText(data)
		if err != nil {
			l.err = &ParseError{Bundle: l.b.Path(), File: name, Err: err}
			return
		}
		port := ""
		if base := path.Base(name); strings.HasPrefix(base, "port-") {
			port = strings.TrimSuffix(strings.TrimPrefix(base, "port-"), ".txt")
		}
		l.s.VFPPorts = append(l.s.VFPPorts, ParseVFPDump(string(text), name, port, ports)...)
		if _, seen := l.s.Inputs[snapshot.InputVFP]; !seen && len(ports) > 0 {
			l.s.Inputs[snapshot.InputVFP] = name
		}
	}
}

// linkVFPPorts ties VFP ports to HNS endpoints: by the endpoint's port GUID
// (V1 Resources.Allocators), else by a MAC only one local endpoint has.
func linkVFPPorts(s *snapshot.Snapshot) {
	if len(s.VFPPorts) == 0 {
		return
	}
	byPort, byMAC := map[string]*snapshot.Endpoint{}, map[string][]*snapshot.Endpoint{}
	for _, e := range s.Endpoints {
		if e.VFPPortID != "" {
			byPort[e.VFPPortID] = e
		}
		if !e.IsRemote && e.MAC != "" {
			byMAC[e.MAC] = append(byMAC[e.MAC], e)
		}
	}
	for _, p := range s.VFPPorts {
		if e, ok := byPort[p.Name]; ok {
			p.EndpointID = e.ID
		} else if eps := byMAC[p.MAC]; len(eps) == 1 {
			p.EndpointID = eps[0].ID
			if eps[0].VFPPortID == "" {
				eps[0].Detail().VFPPortID = p.Name
			}
		}
	}
}

// loadLinuxFiles reads iproute2 JSON outputs; each file's kind is told from
// its objects, so the names under linux/ are only a convention.
func loadLinuxFiles(l *loader, files []string) {
	var set objectSet
	set.init()
	for _, name := range files {
		if _, ok := l.readArtifact(&set, name); !ok {
			return
		}
	}
	if set.linux != nil {
		set.into(l.s)
	}
}

// shareEndpointIDs makes the tables of the load balancers' backends hold
// the endpoints' own ID strings: the 20,000 distinct backends of a large
// cluster's node are then no second copy. The endpoints' index is the
// snapshot's, which the rules use next.
func shareEndpointIDs(s *snapshot.Snapshot) {
	if len(s.LoadBalancers) == 0 {
		return
	}
	ids := s.EndpointsByID()
	var last *snapshot.EndpointIDTable
	seen := map[*snapshot.EndpointIDTable]bool{}
	for _, lb := range s.LoadBalancers {
		t := lb.EndpointIDs.Table()
		if t == nil || t == last || seen[t] {
			continue
		}
		last, seen[t] = t, true
		t.ShareEndpointIDs(ids)
	}
}

// loadCalicoIPAM reads Calico's IPAM state: the blocks are what a rule
// needs; the configuration and affinities complete it when present.
func loadCalicoIPAM(l *loader) {
	blocks := loadStream(l, snapshot.FileCalicoIPAMBlocks, snapshot.InputCalicoIPAM, func(o obj, _ snapshot.Ref) *snapshot.CalicoBlock { return calicoBlockOf(o) },
		func(d []byte, _ string) ([]*snapshot.CalicoBlock, error) { return ParseCalicoIPAMBlocks(d) })
	if l.err != nil || !l.b.Has(snapshot.FileCalicoIPAMBlocks) {
		return
	}
	ipam := &snapshot.CalicoIPAM{Blocks: blocks}
	if data, ok := l.read(snapshot.FileCalicoIPAMConfigs); ok {
		ipam.StrictAffinity, l.err = ParseCalicoIPAMConfigs(data)
		ipam.ConfigFile = snapshot.FileCalicoIPAMConfigs
		l.wrap(snapshot.FileCalicoIPAMConfigs)
	}
	if data, ok := l.read(snapshot.FileCalicoBlockAffinities); ok {
		ipam.Affinities, l.err = ParseCalicoBlockAffinities(data)
		l.wrap(snapshot.FileCalicoBlockAffinities)
	}
	l.s.CalicoIPAM = ipam
}
