package formats

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/wincni/diag/bundle"
)

// Inputs are what a path the user named holds: one input, or, for a folder
// that is not itself a bundle, each bundle inside it (a support engineer
// unpacks an upload with one folder or zip per node; diag collect
// --cluster writes one zip per node beside cluster.json). Notes say what
// was left out and why.
type Inputs struct {
	Paths []string
	Notes []string
}

// Limits of the look inside a folder: how deep, and how many entries.
const (
	maxNestDepth   = 3
	maxDirEntries  = 10000
	clusterReport  = "cluster.json"
	maxClusterJSON = 16 << 20
)

// ExpandInput finds the inputs at p. A file, or a folder that is a bundle
// (a manifest, a folder of the bundle layout, collectlogs output), is one
// input. A folder with cluster.json is the collection it describes. Any
// other folder is searched (three levels down) for bundles: each is its
// own input; with none, the folder is read as loose files, as before.
func ExpandInput(p string) (Inputs, error) {
	fi, err := os.Stat(p)
	if err != nil || !fi.IsDir() {
		return Inputs{Paths: []string{p}}, nil // Open words the error
	}
	names, err := dirNames(p)
	if err != nil {
		return Inputs{}, &bundle.Error{Path: p, Err: err}
	}
	if in, ok, err := clusterInputs(p, names); ok || err != nil {
		return in, err
	}
	if isBundleDir(p, names) {
		return Inputs{Paths: []string{p}}, nil
	}
	var in Inputs
	var loose []string
	if err := findNested(p, names, 1, &in, &loose); err != nil {
		return Inputs{}, err
	}
	if len(in.Paths) == 0 {
		return Inputs{Paths: []string{p}}, nil
	}
	if len(loose) > 0 {
		in.Notes = append(in.Notes, fmt.Sprintf("%s: not read: %s, beside the bundles in it (analyze them on their own if they belong to a node)", p, strings.Join(firstN(loose, 5), ", ")))
	}
	return in, nil
}

// dirNames lists a folder's entries, sorted, within maxDirEntries.
func dirNames(dir string) ([]os.DirEntry, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ents, err := f.ReadDir(maxDirEntries + 1)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if len(ents) > maxDirEntries {
		return nil, fmt.Errorf("more than %d entries in one folder", maxDirEntries)
	}
	sort.Slice(ents, func(i, j int) bool { return ents[i].Name() < ents[j].Name() })
	return ents, nil
}

// isBundleDir: a folder that is a bundle by its top-level names alone.
func isBundleDir(dir string, ents []os.DirEntry) bool {
	collectlogs := 0
	for _, e := range ents {
		n := e.Name()
		switch {
		case !e.IsDir() && n == bundle.ManifestPath:
			return true
		case e.IsDir() && layoutFolder(n):
			return true
		case !e.IsDir() && collectlogsName(n):
			collectlogs++
		}
	}
	return collectlogs >= 3
}

// layoutFolder: a top-level folder of the bundle layout (DESIGN.md).
func layoutFolder(n string) bool {
	switch n {
	case "hns", "host", "k8s", "linux", "vfp", "config":
		return true
	}
	return false
}

// findNested collects the bundles under dir (folders that are bundles, and
// zips that are), and the top-level files that are none.
func findNested(dir string, ents []os.DirEntry, depth int, in *Inputs, loose *[]string) error {
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		switch {
		case e.Type()&os.ModeSymlink != 0:
			if depth == 1 {
				*loose = append(*loose, e.Name()+" (a link)")
			}
		case e.IsDir():
			sub, err := dirNames(p)
			if err != nil {
				return &bundle.Error{Path: p, Err: err}
			}
			if isBundleDir(p, sub) {
				in.Paths = append(in.Paths, p)
				continue
			}
			if cin, ok, err := clusterInputs(p, sub); err != nil {
				return err
			} else if ok {
				in.Paths = append(in.Paths, cin.Paths...)
				in.Notes = append(in.Notes, cin.Notes...)
				continue
			}
			if depth < maxNestDepth {
				var deeper []string
				if err := findNested(p, sub, depth+1, in, &deeper); err != nil {
					return err
				}
				if depth == 1 && len(deeper) > 0 {
					*loose = append(*loose, e.Name()+"/")
				}
			}
		case e.Type().IsRegular() && isBundleZip(p):
			in.Paths = append(in.Paths, p)
		case e.Type().IsRegular():
			*loose = append(*loose, e.Name())
		}
	}
	return nil
}

// isBundleZip: a zip holding a diag bundle or collectlogs output.
func isBundleZip(p string) bool {
	if !strings.EqualFold(filepath.Ext(p), ".zip") {
		return false
	}
	b, err := bundle.Open(p, bundle.DefaultLimits)
	if err != nil {
		return false
	}
	defer b.Close()
	return b.Manifest != nil || hasLayoutFolder(b) || isCollectlogs(b)
}

// clusterInputs reads cluster.json, when dir has diag's: the bundles of
// the nodes that gave one, and a note for each that did not.
func clusterInputs(dir string, ents []os.DirEntry) (Inputs, bool, error) {
	found := false
	for _, e := range ents {
		if !e.IsDir() && e.Name() == clusterReport {
			found = true
		}
	}
	if !found {
		return Inputs{}, false, nil
	}
	path := filepath.Join(dir, clusterReport)
	f, err := os.Open(path)
	if err != nil {
		return Inputs{}, true, &bundle.Error{Path: path, Err: err}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxClusterJSON+1))
	if err != nil {
		return Inputs{}, true, &bundle.Error{Path: path, Err: err}
	}
	var rep struct {
		Tool  string `json:"tool"`
		Nodes []struct {
			Name, Status, Reason, Bundle string
		} `json:"nodes"`
	}
	if len(data) > maxClusterJSON || json.Unmarshal(data, &rep) != nil || rep.Tool != "diag" {
		return Inputs{}, false, nil // someone else's cluster.json: the folder is read as usual
	}
	var in Inputs
	for _, n := range rep.Nodes {
		if n.Bundle == "" || (n.Status != "ok" && n.Status != "partial") {
			in.Notes = append(in.Notes, fmt.Sprintf("%s: node %s gave no bundle (%s: %s)", path, n.Name, n.Status, n.Reason))
			continue
		}
		p := filepath.Join(dir, filepath.Base(n.Bundle))
		if _, err := os.Stat(p); err != nil {
			in.Notes = append(in.Notes, fmt.Sprintf("%s: node %s's bundle %s is not there", path, n.Name, filepath.Base(n.Bundle)))
			continue
		}
		in.Paths = append(in.Paths, p)
	}
	if len(in.Paths) == 0 {
		return in, true, &bundle.Error{Path: path, Err: fmt.Errorf("no node of this collection gave a bundle (%d node(s) listed)", len(rep.Nodes))}
	}
	return in, true, nil
}
