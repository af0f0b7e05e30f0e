package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

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
// repository: a user reads them on a plain clone or its web view.
func TestDocsLinksResolve(t *testing.T) {
	link := regexp.MustCompile(`\]\(([^)#\s]+)(#[^)]*)?\)`)
	pages, _ := filepath.Glob("../../docs/*.md")
	pages = append(pages, "../../README.md")
	for _, page := range pages {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(data), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(page), target)); err != nil {
				t.Errorf("%s links to %s, which does not exist", filepath.Base(page), target)
			}
		}
	}
}
