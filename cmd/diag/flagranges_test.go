package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Every flag that outOfRange can refuse says its range: without an
// annotation the refusal would only name the flag's type ("--jitter must
// be a float64, not 2"), which does not tell the user what to give.
func TestRefusedFlagsSayTheirRange(t *testing.T) {
	names := outOfRangeFlags(t)
	if len(names) == 0 {
		t.Fatal("found no outOfRange call: the test reads the wrong files")
	}
	seen := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(fl *pflag.Flag) {
			if !names[fl.Name] {
				return
			}
			seen[fl.Name] = true
			if len(fl.Annotations[annotationValid]) == 0 {
				t.Errorf("%s --%s is refused by outOfRange but has no validValues phrase (it would say %q)", c.CommandPath(), fl.Name, whatFlagTakes(fl))
			}
		})
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	var ran bool
	walk(newRootCommand(&env{}, &ran))
	for n := range names {
		if !seen[n] {
			t.Errorf("outOfRange refuses --%s, which no command has", n)
		}
	}
}

// outOfRangeFlags are the flag names the package passes to outOfRange.
func outOfRangeFlags(t *testing.T) map[string]bool {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	fset := token.NewFileSet()
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) < 2 {
				return true
			}
			if id, ok := call.Fun.(*ast.Ident); !ok || id.Name != "outOfRange" {
				return true
			}
			lit, ok := call.Args[1].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				t.Errorf("%s: outOfRange with a flag name that is not a literal", fset.Position(call.Pos()))
				return true
			}
			name, _ := strconv.Unquote(lit.Value)
			names[name] = true
			return true
		})
	}
	return names
}

// --vxlan-port adds ports to the defaults, each once.
func TestVXLANPortsOnce(t *testing.T) {
	if got := vxlanPorts([]uint{4789, 8472, 8472}, vxlanIANAPort); !slices.Equal(got, []uint16{4789, 8472}) {
		t.Errorf("ports %v", got)
	}
	if got := vxlanPorts(nil); len(got) != 0 {
		t.Errorf("no ports: %v", got)
	}
}
