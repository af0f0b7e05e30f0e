package formats

import (
	"fmt"
	"path"
	"strings"

	"github.com/wincni/diag/bundle"
	"github.com/wincni/diag/snapshot"
)

// collectlogs.ps1 (microsoft/SDN, wcnscripts) writes a folder of console
// captures; the AKS wrapper zips that folder's files flat with its own. The
// HNS files are a Format-Table followed by ConvertTo-Json output.
var collectlogsFiles = []string{"network.txt", "endpoint.txt", "policy.txt", "namespaces.txt", "ports.txt",
	"vfpoutput.txt", "routes.txt", "ip.txt", "hnsdiag.txt", "winver.txt", "mtu.txt"}

// isCollectlogs: at least three of collectlogs' file names at the top.
func isCollectlogs(b *bundle.Bundle) bool {
	found := 0
	for _, name := range b.Names() {
		if !strings.Contains(name, "/") && collectlogsName(name) {
			found++
		}
	}
	return found >= 3
}

// collectlogsName: one of collectlogs' top-level file names.
func collectlogsName(name string) bool {
	for _, f := range collectlogsFiles {
		if strings.EqualFold(name, f) {
			return true
		}
	}
	return false
}

// collectlogsEntry finds a top-level file by name, case-insensitively.
func collectlogsEntry(b *bundle.Bundle, name string) (string, bool) {
	for _, n := range b.Names() {
		if !strings.Contains(n, "/") && strings.EqualFold(n, name) {
			return n, true
		}
	}
	return "", false
}

func loadCollectlogs(l *loader) {
	var set objectSet
	// networkdetailed.txt repeats network.txt with more detail; use it only
	// when network.txt is missing.
	files := []string{"network.txt", "endpoint.txt", "namespaces.txt", "policy.txt"}
	if _, ok := collectlogsEntry(l.b, "network.txt"); !ok {
		files = append(files, "networkdetailed.txt")
	}
	for _, f := range files {
		name, ok := collectlogsEntry(l.b, f)
		if !ok {
			continue
		}
		if _, ok := l.readArtifact(&set, name); !ok {
			return
		}
	}
	set.into(l.s)
	var vfpFiles []string
	for _, f := range []string{"ports.txt", "vfpOutput.txt"} {
		if name, ok := collectlogsEntry(l.b, f); ok {
			vfpFiles = append(vfpFiles, name)
		}
	}
	loadVFPFiles(l, vfpFiles)
	loadCollectlogsHost(l)
	if l.s.OS == nil || l.s.OS.Hostname == "" {
		if host := aksHostFromName(l.b.Path()); host != "" {
			l.s.Facts.Name = snapshot.Fact{Value: host, Source: "file name " + path.Base(l.b.Path())}
		}
	}
}

// readText reads a top-level collectlogs file as UTF-8 text.
func readText(l *loader, file string) (string, string, bool) {
	name, ok := collectlogsEntry(l.b, file)
	if !ok {
		return "", "", false
	}
	data, ok := l.read(name)
	if !ok {
		return "", "", false
	}
	text, err := DecodeText(data)
	if err != nil {
		l.err = &ParseError{Bundle: l.b.Path(), File: name, Err: err}
		return "", "", false
	}
	return string(text), name, true
}

// loadCollectlogsHost reads the host's adapters, routes, MTUs and OS build.
func loadCollectlogsHost(l *loader) {
	s := l.s
	hostname := ""
	if text, name, ok := readText(l, "ip.txt"); ok {
		s.Adapters, hostname = ParseIPConfig(text)
		if len(s.Adapters) > 0 {
			s.Inputs[snapshot.InputHostAdapters] = name
		}
	}
	if text, _, ok := readText(l, "mtu.txt"); ok {
		ApplyNetshInterfaces(text, s.Adapters)
	}
	if text, name, ok := readText(l, "routes.txt"); ok {
		ApplyRouteInterfaceList(text, s.Adapters)
		if s.Routes = ParseRoutePrint(text, s.Adapters); len(s.Routes) > 0 {
			s.Inputs[snapshot.InputHostRoutes] = name
		}
	}
	if text, name, ok := readText(l, "winver.txt"); ok {
		if s.OS = ParseWinver(text); s.OS != nil {
			s.Inputs[snapshot.InputOS] = name
			if s.OS.Hostname != "" {
				s.OS.HostnameFrom = name + " " + s.OS.HostnameFrom
			}
		}
	}
	if hostname != "" {
		if s.OS == nil {
			s.OS = &snapshot.OSInfo{}
			s.Inputs[snapshot.InputOS] = "ip.txt"
		}
		s.OS.Hostname, s.OS.HostnameFrom = hostname, "ip.txt Host Name"
	}
	if text, name, ok := readText(l, "hnsdiag.txt"); ok {
		var supported bool
		if s.HNSDiag, supported = ParseHNSDiag(text); !supported {
			s.Notes = append(s.Notes, name+": hnsdiag printed its usage text (this build lacks the verb collectlogs used): not supported, no data")
		}
		crossCheckHNSDiag(s, name)
	}
}

// aksHostFromName reads the host from the AKS wrapper's zip name,
// <computername>-<yyyyMMdd-hhmmss>_logs.zip.
func aksHostFromName(p string) string {
	base := path.Base(strings.ReplaceAll(p, `\`, "/"))
	if !strings.HasSuffix(strings.ToLower(base), "_logs.zip") {
		return ""
	}
	stem := base[:len(base)-len("_logs.zip")]
	// Drop "-yyyyMMdd-hhmmss".
	parts := strings.Split(stem, "-")
	if len(parts) < 3 {
		return ""
	}
	return strings.Join(parts[:len(parts)-2], "-")
}

// crossCheckHNSDiag notes objects hnsdiag listed that the JSON dumps lack:
// a sign that a dump was cut short or taken at another time.
func crossCheckHNSDiag(s *snapshot.Snapshot, file string) {
	known := map[string]bool{}
	for _, n := range s.Networks {
		known[n.ID] = true
	}
	for _, e := range s.Endpoints {
		known[e.ID] = true
	}
	for _, o := range s.HNSDiag {
		if (o.Kind == "network" && len(s.Networks) > 0 || o.Kind == "endpoint" && len(s.Endpoints) > 0) && !known[o.ID] {
			s.Notes = append(s.Notes, fmt.Sprintf("%s lists %s %s (%s) that the HNS JSON dumps lack", file, o.Kind, o.ID, o.Name))
		}
	}
}
