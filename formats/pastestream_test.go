package formats

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wincni/diag/gen"
)

// setView is what a part adds to an objectSet, as JSON for comparing.
func setView(t testing.TB, set *objectSet, n int) string {
	v := map[string]any{"n": n, "networks": set.networks, "endpoints": set.endpoints, "loadBalancers": set.loadBalancers,
		"namespaces": set.namespaces, "kubeNodes": set.kubeNodes, "services": set.services, "notes": set.notes,
		"counts": set.counts, "recognised": set.recognised, "hint": set.hint}
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// pasteBoth reads data with the whole-text path and, when it takes it,
// with the streaming one; streamed is false when the streaming reader
// left it to the whole-text path.
func pasteBoth(t testing.TB, data []byte) (whole, stream string, streamed bool) {
	var a objectSet
	a.init()
	n, err := a.addArtifact(data, "p.txt")
	if err != nil {
		n = -1
	}
	var b objectSet
	b.init()
	m, serr := b.streamList(bytes.NewReader(data), int64(len(data)), "p.txt")
	if serr != nil {
		return "", "", false
	}
	return setView(t, &a, n), setView(t, &b, m), true
}

// TestPasteStreamSame: every paste the repository holds (and the real ones
// beside it) reads the same through the streaming reader as through the
// whole-text path, when the streaming reader takes it; and it takes the
// plain Format-List ones.
func TestPasteStreamSame(t *testing.T) {
	var files []string
	for _, root := range []string{"testdata", filepath.Join("..", "testdata"), filepath.Join("..", "analyzers", "testdata"), filepath.Join("..", "..", "shared", "real-pastes")} {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".txt") {
				files = append(files, p)
			}
			return nil
		})
	}
	dir := t.TempDir()
	if err := gen.WriteEndpointPaste(dir, gen.EndpointPaste{Nodes: 3, PerNode: 2}); err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join(dir, gen.PasteListFile))
	streamed := 0
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		whole, stream, ok := pasteBoth(t, data)
		if !ok {
			continue
		}
		streamed++
		t.Logf("streamed: %s", p)
		if whole != stream {
			t.Errorf("%s: the streaming reader reads otherwise:\nwhole: %s\nstream: %s", p, whole, stream)
		}
	}
	t.Logf("%d of %d text files streamed", streamed, len(files))
	if streamed < 5 {
		t.Errorf("only %d of %d text files were taken by the streaming reader", streamed, len(files))
	}
}

// TestPasteStreamRefuses: each quirk that makes addText read a text
// otherwise sends it to the whole-text path.
func TestPasteStreamRefuses(t *testing.T) {
	rec := "ID                 : 6513270e-269e-0d37-f2a7-4de452e6b438\r\nName               : pod0\r\nIPAddress          : 10.244.0.2\r\nIsRemoteEndpoint   : False\r\n"
	if _, _, ok := pasteBoth(t, []byte(rec)); !ok {
		t.Fatal("a plain record is not streamed")
	}
	for name, text := range map[string]string{
		"quote":       "> " + strings.ReplaceAll(rec, "\r\n", "\r\n> "),
		"fence":       "```\r\n" + rec + "```\r\n",
		"indented":    "    " + strings.ReplaceAll(rec, "\r\n", "\r\n    "),
		"block":       "prose\r\n\r\n    " + strings.ReplaceAll(strings.TrimSuffix(rec, "\r\n"), "\r\n", "\r\n    ") + "\r\n",
		"tab":         strings.Replace(rec, "pod0", "pod\t0", 1),
		"utf-16":      "\xff\xfe" + rec,
		"non-ascii":   strings.Replace(rec, "pod0", "pöd0", 1),
		"table":       "Name Type\r\n---- ----\r\nnat  nat\r\n\r\n" + rec,
		"json":        "[\r\n" + rec,
		"route print": rec + "\r\nActive Routes:\r\n",
		"ipconfig":    rec + "\r\n   IPv4 Address. . . : 10.0.0.4\r\n",
		"no record":   "just prose\r\n",
		"hard wrap": "Name : " + strings.Repeat("a", 50) + "\r\n       bcdef\r\nID   : " + strings.Repeat("b", 50) + "\r\n       xyz\r\n" +
			"IPAddress : 10.0.0.1\r\n",
	} {
		if _, _, ok := pasteBoth(t, []byte(text)); ok {
			t.Errorf("%s: streamed", name)
		}
	}
}

// FuzzPasteStream: whatever the streaming reader takes, it reads as the
// whole-text path does.
func FuzzPasteStream(f *testing.F) {
	dir := f.TempDir()
	if err := gen.WriteEndpointPaste(dir, gen.EndpointPaste{Nodes: 2, PerNode: 2}); err != nil {
		f.Fatal(err)
	}
	paths, _ := filepath.Glob("testdata/pastes/*.txt")
	addSeeds(f, append(paths, filepath.Join(dir, gen.PasteListFile))...)
	f.Add([]byte("Name : a\r\nPolicies : {@{Type=PA; PA=1.2.3.4}, @{Type=ROUTE\r\nID : x\r\n\r\nName : b\r\n    c\r\nMacAddres\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if whole, stream, ok := pasteBoth(t, data); ok && whole != stream {
			t.Errorf("the streaming reader reads otherwise:\nwhole: %s\nstream: %s", whole, stream)
		}
	})
}
