package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/wincni/diag/golden"
)

// The README's walkthrough (collect, verify, analyze, HTML, JSON, anonymize)
// works as written: each line of the block after the readme-test marker
// runs in order in an empty directory.
func TestREADMEWalkthrough(t *testing.T) {
	lines := golden.Commands(t, "../../README.md", "<!-- readme-test: walkthrough -->")
	if len(lines) < 5 {
		t.Fatalf("the walkthrough has %d commands: %q", len(lines), lines)
	}
	t.Chdir(t.TempDir())
	for _, line := range lines {
		args := strings.Fields(line)
		if args[0] != "diag" {
			t.Fatalf("a walkthrough line that is not a diag command: %q", line)
		}
		r := runDiag(t, map[string]string{"NODE_NAME": "readme-node"}, false, args[1:]...)
		// 3 is an outcome: findings (analyze), a partial bundle (collect:
		// this machine has no HNS and perhaps no ip command).
		if r.code != 0 && !(r.code == 3 && (args[1] == "analyze" || args[1] == "collect")) {
			t.Fatalf("%s: exit %d\n%s%s", line, r.code, r.stdout, r.stderr)
		}
		if strings.Contains(line, "--fail-on never") && r.code != 0 {
			t.Errorf("%s: exit %d", line, r.code)
		}
	}
	for _, f := range []string{"node.zip", "report.html", "ticket.zip", "ticket.zip.key", "ticket.html"} {
		if st, err := os.Stat(f); err != nil || st.Size() == 0 {
			t.Errorf("the walkthrough did not write %s: %v", f, err)
		}
	}
}

// The README's exit status table has every code the commands use, 3
// included (it once stopped at 2).
func TestREADMEExitStatus(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, row := range []string{"| 0 | success", "| 1 | internal error", "| 2 | bad usage or unreadable input", "| 3 | findings at or above `--fail-on`"} {
		if !strings.Contains(text, row) {
			t.Errorf("README lacks the exit status row %q", row)
		}
	}
}

// Every relative link of the README and docs/ names a file of the
// repository, and a link to a heading (page.md#anchor, #anchor) names one
// of that page's headings: a user reads them on a plain clone or its web
// view.
func TestDocsLinksResolve(t *testing.T) {
	link := regexp.MustCompile(`\]\(([^)#\s]*)(#[^)\s]*)?\)`)
	for _, page := range docPages(t) {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(data), -1) {
			target, anchor := m[1], strings.TrimPrefix(m[2], "#")
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") || target == "" && anchor == "" {
				continue
			}
			path := page
			if target != "" {
				path = filepath.Join(filepath.Dir(page), target)
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s links to %s, which does not exist", filepath.Base(page), target)
					continue
				}
			}
			if anchor != "" && strings.HasSuffix(path, ".md") && !slices.Contains(headingAnchors(t, path), anchor) {
				t.Errorf("%s links to %s#%s: no such heading in %s", filepath.Base(page), target, anchor, filepath.Base(path))
			}
		}
	}
}

// docPages are the README and the pages of docs/.
func docPages(t *testing.T) []string {
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil || len(pages) < 10 {
		t.Fatalf("docs/ has %d pages: %v", len(pages), err)
	}
	return append(pages, "../../README.md")
}

// headingAnchors are the anchors a Markdown page's headings get on
// GitHub: lower case, punctuation dropped, spaces to hyphens, a repeated
// heading numbered.
func headingAnchors(t *testing.T, path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteByte('-')
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			out = append(out, fmt.Sprintf("%s-%d", a, n))
		} else {
			out = append(out, a)
		}
		seen[a]++
	}
	return out
}

// docCommand is one command line of a document's code block.
type docCommand struct {
	page string
	line int
	text string // without the prompt and the comment
}

func (c docCommand) String() string {
	return fmt.Sprintf("%s:%d: %s", filepath.Base(c.page), c.line, c.text)
}

// docCommands are the command lines of the README and docs/: in a sh
// block, the lines that start with diag, kubectl or make and those that
// pipe into diag; in an output block, the line after a "$ " prompt.
func docCommands(t *testing.T) []docCommand {
	var out []docCommand
	for _, page := range docPages(t) {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		block := "" // the fence's language, "text" for none; "" outside
		for i, line := range strings.Split(string(data), "\n") {
			if fence, ok := strings.CutPrefix(line, "```"); ok {
				switch {
				case block != "":
					block = ""
				case fence == "":
					block = "text"
				default:
					block = fence
				}
				continue
			}
			text, _, _ := strings.Cut(line, " #")
			text, prompt := strings.CutPrefix(strings.TrimSpace(text), "$ ")
			if block != "sh" && !(block == "text" && prompt) {
				continue
			}
			first, _, _ := strings.Cut(text, " ")
			if first == "diag" || first == "kubectl" || first == "make" || strings.Contains(text, "| diag ") || strings.Contains(text, " diag analyze -") {
				out = append(out, docCommand{page, i + 1, text})
			}
		}
	}
	return out
}

// docInlineCommands are the diag commands the text of the README and
// docs/ names in code spans, without what a shell does with them
// (redirection) and without the placeholder of any command
// (`diag COMMAND --help`).
func docInlineCommands(t *testing.T) []docCommand {
	span := regexp.MustCompile("`" + `(?:\.\\)?diag(?:\.exe)? ([^` + "`" + `]*)` + "`")
	var out []docCommand
	for _, page := range docPages(t) {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		fenced := false
		for i, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, "```") {
				fenced = !fenced
			}
			if fenced {
				continue
			}
			for _, m := range span.FindAllStringSubmatch(line, -1) {
				args, _, _ := strings.Cut(m[1], " > ")
				if first, _, _ := strings.Cut(args, " "); first == strings.ToUpper(first) {
					continue
				}
				out = append(out, docCommand{page, i + 1, "diag " + args})
			}
		}
	}
	return out
}

// runnableCommands are the diag commands a test may run on the
// repository's files: they read their inputs and write only --output-file.
var runnableCommands = []string{"diag analyze", "diag rules", "diag snapshot", "diag diff", "diag capture decode", "diag capture convert", "diag bundle verify", "diag completion"}

// Every command the README and docs/ show works as shown: each diag
// command names a command and flags diag has, with values they take and
// as many arguments as it takes; one whose inputs are files of the
// repository (the seed bundles, the sample captures and pastes) runs and
// exits 0 or 3; kubectl -f names a file of deploy/, make a target of the
// Makefile. A command that needs a node, a cluster or a file of the
// reader's (node.zip, PktMon.etl) is checked without running.
func TestDocsCommands(t *testing.T) {
	cmds, inline := docCommands(t), docInlineCommands(t)
	makefile, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	t.Chdir("../..")
	var ran, parsed int
	for _, c := range cmds {
		for _, seg := range strings.Split(c.text, " | ") {
			args := strings.Fields(seg)
			if args[0] == "ssh" { // ssh host diag ...
				i := slices.Index(args, "diag")
				if i < 0 {
					continue
				}
				args = args[i:]
			}
			switch args[0] {
			case "make":
				for _, target := range args[1:] {
					if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(target) + `:`).Match(makefile) {
						t.Errorf("%v: the Makefile has no target %s", c, target)
					}
				}
			case "kubectl":
				if i := slices.Index(args, "-f"); i >= 0 && i+1 < len(args) && args[i+1] != "-" {
					if _, err := os.Stat(args[i+1]); err != nil {
						t.Errorf("%v: %v", c, err)
					}
				}
			case "diag":
				args = docArgs(args[1:])
				cmd := docCommandOf(t, c, args, true)
				if cmd == nil {
					continue
				}
				parsed++
				if runnable(cmd) {
					for i, a := range args {
						if i > 0 && args[i-1] == "--output-file" {
							args[i] = filepath.Join(out, filepath.Base(a))
						}
					}
					r := runDiag(t, nil, false, args...)
					if r.code != 0 && r.code != 3 {
						t.Errorf("%v: exit %d\n%s", c, r.code, r.stderr)
					}
					t.Logf("ran %v: exit %d", c, r.code)
					ran++
				}
			}
		}
	}
	// Commands named in the text (`diag rules ID`, `diag analyze -o
	// json`): the command and its flags, not run.
	for _, c := range inline {
		if docCommandOf(t, c, docArgs(strings.Fields(c.text)[1:]), false) != nil {
			parsed++
		}
	}
	t.Logf("%d diag commands of %d lines checked, %d of them run", parsed, len(cmds), ran)
	if parsed < 60 || ran < 5 {
		t.Errorf("only %d diag commands checked and %d run: the blocks were not read", parsed, ran)
	}
}

// docArgs reads a command's notation: [optional] arguments as given, the
// first of a|b|c alternatives.
func docArgs(args []string) []string {
	var out []string
	for _, a := range args {
		a = strings.Trim(a, "[]")
		if !strings.HasPrefix(a, "-") {
			a, _, _ = strings.Cut(a, "|")
		}
		out = append(out, a)
	}
	return out
}

// docCommandOf is the diag command args name, with its flags parsed,
// or nil after reporting what diag does not know: the command, a flag, a
// flag's value or (for a whole command line) the number of arguments.
func docCommandOf(t *testing.T, c docCommand, args []string, whole bool) *cobra.Command {
	t.Helper()
	var stdout, stderr strings.Builder
	ran := false
	root := newRootCommand(&env{stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}, &ran)
	cmd, rest, err := root.Find(args)
	if err != nil || cmd == root {
		t.Errorf("%v: not a diag command: %v", c, err)
		return nil
	}
	if err := cmd.ParseFlags(rest); err != nil {
		t.Errorf("%v: %v", c, err)
		return nil
	}
	if whole && cmd.Args != nil {
		if err := cmd.Args(cmd, cmd.Flags().Args()); err != nil {
			t.Errorf("%v: %v", c, err)
			return nil
		}
	}
	return cmd
}

// runnable says whether a doc command can run here: one of the commands
// that only read and write --output-file, whose inputs are the
// repository's files (rules and completion take names, not files).
func runnable(cmd *cobra.Command) bool {
	path := cmd.CommandPath()
	if cmd.HasParent() && cmd.Parent().Name() == "completion" {
		path = cmd.Parent().CommandPath() // diag completion bash
	}
	if !slices.Contains(runnableCommands, path) {
		return false
	}
	if path == "diag rules" || path == "diag completion" {
		return true
	}
	inputs := cmd.Flags().Args()
	if f := cmd.Flags().Lookup("bundle"); f != nil {
		b, _ := cmd.Flags().GetStringSlice("bundle")
		inputs = append(inputs, b...)
	}
	for _, in := range inputs {
		// A placeholder (BUNDLE..., OLD) is no input, even where the file
		// system finds one by it: Windows drops a name's trailing dots
		// and ignores its case, so BUNDLE... is the bundle/ folder there.
		if in == strings.ToUpper(in) {
			return false
		}
		// A path into the repository is run, missing or not: a misspelt
		// one fails here as it fails the reader. Another (node.zip) is
		// the reader's own file.
		if _, err := os.Stat(in); err != nil && !repositoryPath(in) {
			return false
		}
	}
	return len(inputs) > 0
}

// repositoryPath says whether a shown input names a file of this
// repository (testdata/, analyzers/testdata/, docs/).
func repositoryPath(p string) bool {
	first, _, _ := strings.Cut(filepath.ToSlash(p), "/")
	if first == "" || strings.ContainsAny(first, ".") {
		return false
	}
	_, err := os.Stat(first)
	return err == nil && strings.Contains(p, "/")
}

// The README's make demo output is what diag prints for the seed bundle,
// but for the lines it leaves out ("...").
func TestREADMEDemoOutput(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	const first = "winw1  [testdata/bundles/seed-broken]\n"
	_, block, ok := strings.Cut(string(data), "```\n"+first)
	if !ok {
		t.Fatal("the README does not show make demo's output")
	}
	block, _, _ = strings.Cut(block, "```")
	t.Chdir("../..")
	r := runDiag(t, nil, false, "analyze", "testdata/bundles/seed-broken")
	if r.code != 3 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, line := range strings.Split(first+strings.TrimRight(block, "\n"), "\n") {
		if strings.TrimSpace(line) != "..." && !strings.Contains(r.stdout, line) {
			t.Errorf("the README shows %q, diag prints:\n%s", line, r.stdout)
		}
	}
}
