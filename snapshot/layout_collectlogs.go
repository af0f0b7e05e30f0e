package snapshot

import (
	"path"
	"strings"

	"github.com/wincni/diag/bundle"
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
		if strings.Contains(name, "/") {
			continue
		}
		for _, f := range collectlogsFiles {
			if strings.EqualFold(name, f) {
				found++
			}
		}
	}
	return found >= 3
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
		data, ok := l.read(name)
		if !ok {
			return
		}
		if _, err := set.addArtifact(data, name); err != nil {
			l.err = &ParseError{Bundle: l.b.Path(), File: name, Err: err}
			return
		}
	}
	set.into(l.s)
	if l.s.Facts.Name.Value == "" {
		if host := aksHostFromName(l.b.Path()); host != "" {
			l.s.Facts.Name = Fact{host, "file name " + path.Base(l.b.Path())}
		}
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
