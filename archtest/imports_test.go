package archtest

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/wincni/diag/"

var importsLine = regexp.MustCompile(`(?s)\n// Imports: (.*?)\.\n`)

// allowed reads "Imports: a, b (why), c." from a package comment: the
// diag packages it may import; nil with ok for "any".
func allowed(doc string) (pkgs []string, any, ok bool) {
	m := importsLine.FindStringSubmatch("\n" + doc)
	if m == nil {
		return nil, false, false
	}
	text := strings.ReplaceAll(m[1], "\n// ", " ")
	text = regexp.MustCompile(`\([^)]*\)`).ReplaceAllString(text, "")
	if strings.HasPrefix(text, "any") {
		return nil, true, true
	}
	if strings.HasPrefix(text, "none") {
		return nil, false, true
	}
	for _, p := range regexp.MustCompile(`[,;]`).Split(text, -1) {
		if f := strings.Fields(p); len(f) > 0 {
			pkgs = append(pkgs, f[0])
		}
	}
	return pkgs, false, true
}

func TestImportGraph(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dirs := map[string][]string{}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "dist" || d.Name() == "bin" || d.Name() == "test-output") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			dirs[filepath.Dir(p)] = append(dirs[filepath.Dir(p)], p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 15 {
		t.Fatalf("found only %d packages under %s", len(dirs), root)
	}
	for dir, files := range dirs {
		rel, _ := filepath.Rel(root, dir)
		rel = filepath.ToSlash(rel)
		var doc string
		imports := map[string]string{} // diag package -> a file importing it
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			af, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly|parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			if af.Doc != nil {
				if doc != "" {
					t.Errorf("%s: two package comments (%s and another file): one home, doc.go", rel, filepath.Base(f))
				}
				doc = "// " + strings.ReplaceAll(strings.TrimSpace(af.Doc.Text()), "\n", "\n// ")
				if filepath.Base(f) != "doc.go" {
					t.Errorf("%s: its package comment is in %s: one home, doc.go", rel, filepath.Base(f))
				}
			}
			for _, im := range af.Imports {
				p := strings.Trim(im.Path.Value, `"`)
				if strings.HasPrefix(p, module) {
					imports[strings.TrimPrefix(p, module)] = filepath.Base(f)
				}
			}
		}
		if doc == "" {
			t.Errorf("%s: no package comment saying what it owns and what it imports", rel)
			continue
		}
		ok, any, found := allowed(doc + "\n")
		if !found {
			t.Errorf("%s: its package comment has no 'Imports:' line", rel)
			continue
		}
		if any {
			continue
		}
		for p, file := range imports {
			if !slices.Contains(ok, p) {
				t.Errorf("%s imports %s (in %s), which its package comment does not allow (Imports: %s)", rel, p, file, strings.Join(ok, ", "))
			}
		}
		// An allowed package no file imports is a stale line: the comment
		// would promise an arrow the code no longer has.
		for _, p := range ok {
			if _, used := imports[p]; !used {
				t.Errorf("%s: its package comment allows %s, which none of its files imports", rel, p)
			}
		}
	}
}

// A package that names a package it does not import says less than it
// seems to: the allowed list is checked against a real comment.
func TestAllowedParsing(t *testing.T) {
	for doc, want := range map[string]string{
		"// Package x is.\n//\n// Imports: bundle (the manifest), snapshot.\n":                                           "bundle snapshot",
		"// Package x is.\n//\n// Imports: analyzers (the engine's Result), bundle\n// (collector statuses), capture.\n": "analyzers bundle capture",
		"// Package x.\n//\n// Imports: none.\n":                                                                         "",
	} {
		got, _, ok := allowed(doc)
		if !ok || strings.Join(got, " ") != want {
			t.Errorf("%q: %v %v, want %q", doc, got, ok, want)
		}
	}
	if _, _, ok := allowed("// Package x has no line.\n"); ok {
		t.Error("a comment without Imports: was read as one")
	}
}

// windowsHomes are the packages that may hold Windows-only files: the
// collectors and live capture (they read the node), the runner of the
// node's tools (a job object ends what a tool leaves), and two shims that
// exist for Windows alone and are a few dozen lines each (a file only its
// owner reads: an ACL; the console: VT processing and code pages).
// Everything else builds and is tested on Linux.
var windowsHomes = []string{"capture", "collectors", "console", "hostexec", "ownerfile"}

func TestWindowsOnlyFilesStayHome(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "dist") {
			return filepath.SkipDir
		}
		// Tests of the Windows build (run under Wine) may live beside the
		// code they test; the rule is about the code.
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		windowsOnly := strings.HasSuffix(p, "_windows.go") ||
			regexp.MustCompile(`(?m)^//go:build windows\s*$`).Match(src)
		if !windowsOnly {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		top := strings.Split(filepath.ToSlash(rel), "/")[0]
		if !slices.Contains(windowsHomes, top) {
			t.Errorf("%s: a Windows-only file outside %v", filepath.ToSlash(rel)+"/"+filepath.Base(p), windowsHomes)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
