package formats

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/wincni/diag/bundle"
	"github.com/wincni/diag/snapshot"
)

// loadLoose reads inputs that are not in a known layout: each file is
// identified by its content (HNS JSON in either schema, Format-List text,
// Kubernetes lists) and every object in it by its keys.
func loadLoose(l *loader) {
	var set objectSet
	var unrecognised []string
	for _, name := range l.b.Names() {
		if name == bundle.ManifestPath {
			continue // the manifest of a redacted bundle of loose files
		}
		n, ok := l.readArtifact(&set, name)
		if !ok {
			return
		}
		if n == 0 && !set.recognised[name] && !l.skippedPart(name) {
			unrecognised = append(unrecognised, name)
		}
	}
	if set.total() == 0 && len(set.recognised) == 0 && len(set.empty) == 0 && len(l.skipped) > 0 {
		// Nothing could be read: the input is unreadable, and says why.
		l.err = &ParseError{Bundle: l.b.Path(), File: "", Err: fmt.Errorf("%w: %s", bundle.ErrTooLarge, strings.Join(l.skipped, "; "))}
		return
	}
	if set.total() == 0 && len(set.recognised) == 0 {
		switch {
		case l.b.Kind() == "file" && set.binaryErr != nil:
			l.err = &ParseError{Bundle: l.b.Path(), File: "", Err: set.binaryErr}
		case len(set.binary) > 0:
			l.err = &ParseError{Bundle: l.b.Path(), File: "", Err: fmt.Errorf("%w: %s (it holds %s)", ErrUnidentified, unidentified(l.b, unrecognised), strings.Join(firstN(set.binary, 3), ", "))}
		default:
			l.err = &ParseError{Bundle: l.b.Path(), File: "", Err: fmt.Errorf("%w: %s", ErrUnidentified, unidentified(l.b, unrecognised))}
		}
		return
	}
	for _, name := range unrecognised {
		if !slices.ContainsFunc(set.binary, func(b string) bool { return strings.HasPrefix(b, name+" (") }) {
			l.s.Notes = append(l.s.Notes, "not recognised, ignored: "+name)
		}
	}
	for _, b := range set.binary {
		l.s.Notes = append(l.s.Notes, "not read: "+b)
	}
	set.into(l.s)
}

// readArtifact reads one file into set and says how many objects it added;
// ok is false when the load must stop (l.err says why, if anything).
func (l *loader) readArtifact(set *objectSet, name string) (n int, ok bool) {
	if l.err == nil && l.b.Size(name) > streamFrom {
		if n, streamed := l.streamArtifact(set, name); streamed {
			return n, l.err == nil
		}
	}
	if n, streamed := l.streamText(set, name); streamed {
		return n, true
	}
	skipped := len(l.skipped)
	data, ok := l.read(name)
	if !ok {
		if l.err == nil && len(l.skipped) > skipped {
			return 0, true // skipped with a note, not unrecognised
		}
		return 0, l.err == nil
	}
	n, err := set.addArtifact(data, name)
	if err != nil {
		l.err = &ParseError{Bundle: l.b.Path(), File: name, Err: err}
		return 0, false
	}
	return n, true
}

// streamText reads a part that is a plain Format-List paste (streamList)
// within the limit of a part read whole; it reports false for any other
// part, which the whole-part path then reads.
func (l *loader) streamText(set *objectSet, name string) (int, bool) {
	if l.err != nil || !l.b.Has(name) {
		return 0, false
	}
	limit, size := l.lim.capFor(name), l.b.Size(name)
	if size > limit {
		return 0, false
	}
	rc, err := l.b.Open(name)
	if err != nil {
		return 0, false
	}
	defer rc.Close()
	lr := &io.LimitedReader{R: rc, N: limit + 1}
	set.init()
	n, err := set.streamList(lr, size, name)
	if err != nil || lr.N == 0 {
		return 0, false // not plain, or more than the header said: the whole-part path
	}
	return n, true
}

// streamFrom: loose JSON larger than this is read element by element.
const streamFrom = 8 << 20

// streamArtifact reads a large JSON list one element at a time, each
// classified on its own, within the value and object limits. The objects
// go to set only once the whole list was read: a part over a limit is
// skipped whole, as its note says. It reports false when the part is not
// streamed (UTF-16, another shape, JSON the streaming reader refuses): the
// whole-part path takes it, within its size limit, and words any error.
func (l *loader) streamArtifact(set *objectSet, name string) (int, bool) {
	rc, err := l.b.Open(name)
	if err != nil {
		return 0, false
	}
	defer rc.Close()
	part := &objectSet{hint: set.hint}
	part.init()
	n, count := 0, 0
	_, err = parseEachReader(newJSONGuard(rc, l.lim.MaxJSONValue), func(o obj, i int) *struct{} {
		if count >= l.lim.MaxObjects {
			return nil
		}
		count++
		if linuxKind(o) != "" && classify(o) == kindUnknown {
			n += part.addLinuxObjects([]obj{o}, name)
			return nil
		}
		part.indexBase = i // the object's position in the file, for references
		n += part.add([]obj{o}, name)
		part.indexBase = 0
		return nil
	})
	set.init()
	switch {
	case errors.Is(err, errPartLimit):
		l.skip(name, l.b.Size(name), err.Error())
		return 0, true
	case err != nil:
		return 0, false
	case part.linux != nil && set.linux != nil:
		return 0, false // a second Linux dump: the whole-part path merges it
	}
	set.absorb(part)
	if count >= l.lim.MaxObjects {
		l.s.Notes = append(l.s.Notes, fmt.Sprintf("%s: only its first %d objects were read (the limit); %s raises it", name, l.lim.MaxObjects, LimitFlag))
	}
	set.recognised[name] = true
	return n, true
}

// addLinuxObjects adds iproute2 JSON objects (ip -j link/addr/route/neigh,
// bridge -j fdb) read from file, the first of which says its kind.
func (set *objectSet) addLinuxObjects(objs []obj, file string) int {
	if set.linux == nil {
		set.linux = &snapshot.LinuxNet{}
	}
	n := addLinux(set.linux, objs)
	set.counts[kindLinux] += n
	if set.linuxFile == "" {
		set.linuxFile = file
	}
	if linuxKind(objs[0]) == "addr" {
		set.linuxAddrFile = file
	}
	return n
}

// absorb adds what streamArtifact read of one part.
func (set *objectSet) absorb(part *objectSet) {
	set.networks = append(set.networks, part.networks...)
	set.endpoints = append(set.endpoints, part.endpoints...)
	set.loadBalancers = append(set.loadBalancers, part.loadBalancers...)
	set.namespaces = append(set.namespaces, part.namespaces...)
	set.kubeNodes = append(set.kubeNodes, part.kubeNodes...)
	set.services = append(set.services, part.services...)
	for k, c := range part.counts {
		set.counts[k] += c
	}
	if part.linux != nil {
		set.linux, set.linuxFile, set.linuxAddrFile = part.linux, part.linuxFile, part.linuxAddrFile
	}
}

// addArtifact identifies one file by content and adds its objects.
func (set *objectSet) addArtifact(data []byte, file string) (int, error) {
	set.init()
	if kind, advice := fileKind(data); kind != "" {
		set.binary = append(set.binary, file+" ("+kind+")")
		set.binaryErr = notText(kind, advice)
		return 0, nil
	}
	text, err := DecodeText(data)
	if err != nil {
		return 0, err
	}
	trimmed := bytes.TrimSpace(text)
	if len(trimmed) == 0 {
		return 0, nil
	}
	if trimmed[0] == '[' || trimmed[0] == '{' {
		v, err := parseJSON(trimmed)
		if err != nil {
			// A JSON value, then what the terminal showed next (the next
			// prompt, another command's output): each read as what it is.
			return set.addJSONThen(trimmed, file, err, 0)
		}
		return set.addJSONValue(v, file), nil
	}
	n, ok, err := set.addText(string(text), file)
	if ok {
		set.recognised[file] = true
	}
	return n, err
}

// addJSONValue adds the objects of one decoded JSON value.
func (set *objectSet) addJSONValue(v any, file string) int {
	objs := objects(v)
	if len(objs) > 0 && linuxKind(objs[0]) != "" && classify(objs[0]) == kindUnknown {
		return set.addLinuxObjects(objs, file)
	}
	return set.add(objs, file)
}

// maxPasteParts bounds how many JSON values and texts after them one paste
// is read as.
const maxPasteParts = 64

// addJSONThen reads text that starts with a JSON value followed by more:
// the values one after the other, then the text after them as console
// text. whole is the error of reading it as one value, returned when not
// even the first value reads.
func (set *objectSet) addJSONThen(text []byte, file string, whole error, depth int) (int, error) {
	if depth == 0 {
		defer func() { set.indexBase = 0 }()
	}
	n := 0
	rest := text
	for part := 0; len(rest) > 0 && (rest[0] == '[' || rest[0] == '{'); part++ {
		v, after, err := firstJSON(rest)
		if err != nil || part >= maxPasteParts {
			if n == 0 {
				return 0, whole
			}
			set.notes = append(set.notes, fmt.Sprintf("%s: read up to line %d; what follows is not JSON that reads (%v)", file, lineOf(string(text), string(rest)), err))
			return n, nil
		}
		// References count objects from the file's start, across values.
		base := set.indexBase
		n += set.addJSONValue(v, file)
		set.indexBase = base + len(objects(v))
		rest = bytes.TrimSpace(after)
	}
	set.recognised[file] = true
	if len(rest) == 0 || depth >= maxPasteParts {
		return n, nil
	}
	m, _, err := set.addTextAt(string(rest), file, depth+1)
	return n + m, err
}

// jsonAfterTable returns the JSON that follows a console table: everything
// from the first line that starts with '[' or '{'.
func jsonAfterTable(text []byte) []byte {
	for off := 0; off < len(text); {
		line := text[off:]
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line = line[:i+1]
		}
		if t := bytes.TrimLeft(line, " \t"); len(t) > 0 && (t[0] == '[' || t[0] == '{') {
			return text[off:]
		}
		off += len(line)
	}
	return nil
}

func (set *objectSet) total() int {
	n := 0
	for _, c := range set.counts {
		n += c
	}
	return n
}

// into moves the objects into the snapshot and records which inputs exist.
func (set *objectSet) into(s *snapshot.Snapshot) {
	s.Networks = append(s.Networks, set.networks...)
	s.Endpoints = append(s.Endpoints, set.endpoints...)
	s.LoadBalancers = append(s.LoadBalancers, set.loadBalancers...)
	s.Namespaces = append(s.Namespaces, set.namespaces...)
	s.KubeNodes = append(s.KubeNodes, set.kubeNodes...)
	s.Services = append(s.Services, set.services...)
	mark := func(in snapshot.Input, present bool, file string) {
		if _, seen := s.Inputs[in]; present && !seen {
			s.Inputs[in] = file
		}
	}
	if len(set.networks) > 0 {
		mark(snapshot.InputHNSNetworks, true, set.networks[0].Refs[0].File)
	}
	if len(set.endpoints) > 0 {
		mark(snapshot.InputHNSEndpoints, true, set.endpoints[0].Refs[0].File)
	}
	if len(set.loadBalancers) > 0 {
		mark(snapshot.InputHNSLoadBalancers, true, set.loadBalancers[0].Ref.File)
	}
	if len(set.namespaces) > 0 {
		mark(snapshot.InputHNSNamespaces, true, set.namespaces[0].Ref.File)
	}
	s.VFPPorts = append(s.VFPPorts, set.vfpPorts...)
	if len(set.vfpPorts) > 0 {
		mark(snapshot.InputVFP, true, set.vfpPorts[0].Source)
	}
	if set.linux != nil {
		s.Linux = set.linux
		mark(snapshot.InputLinux, true, set.linuxFile)
		if len(s.Adapters) == 0 {
			s.Adapters = linuxAdapters(set.linux)
			mark(snapshot.InputHostAdapters, len(s.Adapters) > 0, set.linuxAddrFile)
		}
	}
	if len(set.adapters) > 0 && len(s.Adapters) == 0 {
		s.Adapters = set.adapters
		// Get-NetAdapter alone shows no addresses: the rules that look
		// for an address on an adapter must not read "on none".
		withAddr := slices.ContainsFunc(set.adapters, func(a *snapshot.HostAdapter) bool { return len(a.Addresses) > 0 })
		mark(snapshot.InputHostAdapters, withAddr, set.adaptersFile)
		if set.hostname != "" && s.OS == nil {
			s.OS = &snapshot.OSInfo{Hostname: set.hostname, HostnameFrom: set.adaptersFile + " Host Name"}
			mark(snapshot.InputOS, true, set.adaptersFile)
		}
	}
	if len(set.routes) > 0 && len(s.Routes) == 0 {
		for _, r := range set.routes {
			if r.Interface == "" || snapshot.ParseAddr(r.Interface).IsValid() {
				resolveRouteInterface(r, s.Adapters)
			}
		}
		s.Routes = set.routes
		mark(snapshot.InputHostRoutes, true, set.routesFile)
	}
	if len(set.hnsdiag) > 0 && len(s.HNSDiag) == 0 {
		s.HNSDiag = set.hnsdiag
	}
	for _, k := range set.empty {
		switch k {
		case "Get-HnsNetwork":
			mark(snapshot.InputHNSNetworks, true, "Get-HnsNetwork (empty)")
		case "Get-HnsEndpoint":
			mark(snapshot.InputHNSEndpoints, true, "Get-HnsEndpoint (empty)")
		case "Get-HnsPolicyList":
			mark(snapshot.InputHNSLoadBalancers, true, "Get-HnsPolicyList (empty)")
		}
	}
	s.Notes = append(s.Notes, set.notes...)
	mark(snapshot.InputKubeNodes, len(set.kubeNodes) > 0, "k8s nodes")
	mark(snapshot.InputKubeServices, len(set.services) > 0, "k8s services")
}

// unidentified says, in one short line, what an unrecognised input held and
// what diag expected instead.
func unidentified(b *bundle.Bundle, names []string) string {
	what := "no file in it holds"
	if b.Kind() == "file" {
		what = "it holds no"
		if b.TotalSize() == 0 {
			return "it is empty; " + expected
		}
	}
	return what + " HNS, host or Kubernetes data diag reads; " + expected
}

// expected is the short list of what diag reads (`diag analyze --help`
// has the whole one).
const expected = "expected a diag bundle, collectlogs output, HNS JSON, or console text such as Get-HnsNetwork, ipconfig /all, route print, hnsdiag or vfpctrl (diag analyze --help lists every format)"
