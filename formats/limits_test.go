package formats

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wincni/diag/bundle"
	"github.com/wincni/diag/snapshot"
)

func loadDirWith(t *testing.T, files map[string]string, lim Limits) (*snapshot.Snapshot, error) {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	b, err := bundle.Open(dir, bundle.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	return LoadWith(b, lim)
}

var smallLimits = Limits{MaxPart: 4 << 10, MaxJSONValue: 256, MaxObjects: 3}

const oneNetwork = `[{"ID":"AA-1","Name":"flannel.4096","Type":"Overlay","ManagementIP":"10.0.0.5"}]`

// A part over a limit is skipped with a note naming it and the flag; the
// rest of the bundle is still read.
func TestPartOverLimitIsSkippedWithNote(t *testing.T) {
	s, err := loadDirWith(t, map[string]string{
		"hns/v2/networks.json":          `[{"ID":"AA-1","Name":"` + strings.Repeat("N", 1000) + `"}]`,
		"hns/v1/networks.json":          oneNetwork,
		"config/kube-proxy/cmdline.txt": strings.Repeat("x", 2<<20),
	}, smallLimits)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Networks) != 1 || s.Networks[0].Name != "flannel.4096" {
		t.Errorf("the rest of the bundle: %+v", s.Networks)
	}
	if s.KubeProxy != nil {
		t.Errorf("a 2 MiB command line was read: %+v", s.KubeProxy)
	}
	for _, want := range []string{"skipped hns/v2/networks.json", "skipped config/kube-proxy/cmdline.txt (2 MiB)"} {
		if !hasNote(s, want, LimitFlag) {
			t.Errorf("no note %q: %v", want, s.Notes)
		}
	}
}

// A loose JSON list larger than streamFrom is read element by element and
// at most MaxObjects of it.
func TestLooseListIsStreamedAndBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("[")
	for i := 0; b.Len() < streamFrom+1000; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{"ID":"EE-%d","Name":"ep%d","IPAddress":"10.1.%d.%d","VirtualNetworkName":"cbr0"}`, i, i, (i>>8)&255, i&255)
	}
	b.WriteString("]")
	lim := DefaultLimits
	lim.MaxObjects = 1000
	s, err := loadDirWith(t, map[string]string{"endpoints.json": b.String()}, lim)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Endpoints) != 1000 || s.Endpoints[999].Refs[0].Index != 999 || !hasNote(s, "only its first 1000 objects") {
		t.Errorf("%d endpoints, last ref %+v, notes %v", len(s.Endpoints), s.Endpoints[len(s.Endpoints)-1].Refs, s.Notes)
	}
}

// bigEndpointList is a loose endpoint list just over streamFrom, ending
// with last (the closing bracket and anything after it).
func bigEndpointList(last string) string {
	var b strings.Builder
	b.WriteString("[")
	for i := 0; b.Len() < streamFrom+1000; i++ {
		fmt.Fprintf(&b, `{"ID":"EE-%d","Name":"ep%d","IPAddress":"10.1.%d.%d","VirtualNetworkName":"cbr0"},`, i, i, (i>>8)&255, i&255)
	}
	b.WriteString(`{"ID":"EE-LAST","Name":"last"}`)
	b.WriteString(last)
	return b.String()
}

// A large loose list the streaming reader refuses goes to the whole-part
// path: a malformed one gets the error with its line and column, and one
// that only the whole-part path takes (a form feed after the list, which
// it trims as white space) loads.
func TestLooseListFallsBackToWholePart(t *testing.T) {
	_, err := loadDirWith(t, map[string]string{"endpoints.json": bigEndpointList(",]")}, DefaultLimits)
	if err == nil || !strings.Contains(err.Error(), "line 1, column") || !strings.Contains(err.Error(), "looking for beginning of value") {
		t.Errorf("malformed: %v", err)
	}
	plain, err := loadDirWith(t, map[string]string{"endpoints.json": bigEndpointList("]")}, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	s, err := loadDirWith(t, map[string]string{"endpoints.json": bigEndpointList("]\f")}, DefaultLimits)
	if err != nil || len(s.Endpoints) != len(plain.Endpoints) || len(s.Endpoints) < 1000 {
		t.Errorf("form feed after the list: %v, %d endpoints (%d without it)", err, len(s.Endpoints), len(plain.Endpoints))
	}
}

// A large loose list over a value limit is skipped whole, as its note
// says: none of the objects read before the limit stays.
func TestLooseListOverLimitIsSkippedWhole(t *testing.T) {
	lim := DefaultLimits
	lim.MaxJSONValue = 1 << 10
	list := bigEndpointList("]")
	list = list[:len(list)-len(`"last"}]`)] + `"` + strings.Repeat("x", 2<<10) + `"}]`
	s, err := loadDirWith(t, map[string]string{"endpoints.json": list, "small.json": `[{"ID":"E1","Name":"x","IPAddress":"10.0.0.1","VirtualNetworkName":"cbr0"}]`}, lim)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Endpoints) != 1 || !hasNote(s, "endpoints.json") {
		t.Errorf("%d endpoints kept from a skipped part; notes %v", len(s.Endpoints), s.Notes)
	}
}

// An input nothing of which can be read within the limits is unreadable.
func TestOnlyPartOverLimitIsUnreadable(t *testing.T) {
	p := filepath.Join(t.TempDir(), "paste.txt")
	os.WriteFile(p, []byte("Name : "+strings.Repeat("x", 8<<10)), 0o600)
	b, err := bundle.Open(p, bundle.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	_, err = LoadWith(b, smallLimits)
	if !errors.Is(err, bundle.ErrTooLarge) || !strings.Contains(err.Error(), LimitFlag) {
		t.Errorf("error: %v", err)
	}
}

func TestJSONGuard(t *testing.T) {
	for text, bad := range map[string]bool{
		`{"a":"` + strings.Repeat("x", 300) + `"}`:            true,
		`{"a":` + strings.Repeat("9", 300) + `}`:              true,
		`[` + strings.Repeat(" ", 300) + `]`:                  true,
		`{"` + strings.Repeat("k", 300) + `":1}`:              true,
		`{"a":"x\"` + strings.Repeat("y", 100) + `"}`:         false,
		`[` + strings.Repeat(`{"a":"bbbbbbbb"},`, 100) + `1]`: false,
	} {
		err := checkJSONValues([]byte(text), 256)
		if (err != nil) != bad || bad && !errors.Is(err, errPartLimit) {
			t.Errorf("%.40q...: %v", text, err)
		}
	}
}

// What diag bundle redact writes from loose files or collectlogs output has
// a manifest but no layout folder: the files still say what they are.
func TestManifestWithLooseFiles(t *testing.T) {
	s, err := loadDirWith(t, map[string]string{
		"manifest.json": `{"format":"diag-bundle","version":1,"node":"win-1"}`,
		"networks.json": oneNetwork,
	}, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if s.Format != snapshot.FormatLoose || len(s.Networks) != 1 {
		t.Errorf("format %v, %d networks, notes %v", s.Format, len(s.Networks), s.Notes)
	}
}

// The guard gives the same verdict however the stream is cut into reads
// (strings and escapes crossing read boundaries).
func FuzzJSONGuard(f *testing.F) {
	f.Add([]byte(`{"a":"b\"c","n":123,"s":"`+strings.Repeat("x", 40)+`"}`), uint8(7))
	f.Add([]byte(`["\\\\", "\\"", 1e10,    ]`), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, cut uint8) {
		whole := checkJSONValues(data, 16)
		g := &jsonGuard{max: 16}
		var pieces error
		for p := data; len(p) > 0 && pieces == nil; {
			n := min(int(cut)%9+1, len(p))
			pieces = g.scan(p[:n])
			p = p[n:]
		}
		if (whole == nil) != (pieces == nil) {
			t.Errorf("whole %v, in pieces of %d: %v", whole, int(cut)%9+1, pieces)
		}
	})
}

// A file that differs from the manifest's checksum (a damaged or edited
// bundle) is read, and the report warns.
func TestManifestChecksumMismatchWarns(t *testing.T) {
	sum := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	manifest := fmt.Sprintf(`{"format":"diag-bundle","version":1,"node":"win-1","files":[{"path":"hns/v1/networks.json","size":%d,"sha256":%q}]}`,
		len(oneNetwork), sum(oneNetwork))
	s, err := loadDirWith(t, map[string]string{"manifest.json": manifest, "hns/v1/networks.json": oneNetwork}, DefaultLimits)
	if err != nil || hasNote(s, "differ from the checksums") {
		t.Fatalf("intact bundle: %v %v", err, s.Notes)
	}
	edited := strings.Replace(oneNetwork, "10.0.0.5", "10.0.0.6", 1)
	s, err = loadDirWith(t, map[string]string{"manifest.json": manifest, "hns/v1/networks.json": edited}, DefaultLimits)
	if err != nil || !hasNote(s, "warning: 1 file(s) differ from the checksums in manifest.json (hns/v1/networks.json)") || len(s.Networks) != 1 {
		t.Errorf("edited bundle: %v %v", err, s.Notes)
	}
}

// quoteOrBackslash finds what bytes.IndexAny finds, at every position
// and around every byte value.
func TestQuoteOrBackslash(t *testing.T) {
	for n := 0; n < 40; n++ {
		for at := -1; at < n; at++ {
			for _, c := range []byte{'"', '\\'} {
				b := make([]byte, n)
				for i := range b {
					b[i] = byte('a' + i%26)
					if i%5 == 3 {
						b[i] = byte(0x80 + i) // high bytes next to the ones looked for
					}
				}
				if at >= 0 {
					b[at] = c
				}
				if got, want := quoteOrBackslash(b), bytes.IndexAny(b, `"\`); got != want {
					t.Fatalf("%q: %d, want %d", b, got, want)
				}
			}
		}
	}
	for c := 0; c < 256; c++ {
		b := bytes.Repeat([]byte{byte(c)}, 11)
		if got, want := quoteOrBackslash(b), bytes.IndexAny(b, `"\`); got != want {
			t.Fatalf("byte %#x: %d, want %d", c, got, want)
		}
	}
}
