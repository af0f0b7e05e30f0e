package standintest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// Rule is what a stand-in does when it is Tool and its arguments, joined
// by spaces, contain Args (the first matching rule wins).
type Rule struct {
	Tool   string // powershell, vfpctrl, pktmon or netsh
	Args   string // a substring of the arguments; empty matches any
	Stdout string
	Stderr string
	BOM    bool // a UTF-8 byte order mark before Stdout
	Exit   int
	Hang   bool // sleep (an hour) after printing, until killed
	// Grandchild, a duration, starts a process that inherits stdout and
	// stderr and holds them that long after the stand-in exits.
	Grandchild string
	// WriteArgAfter writes WriteData to the path that follows this
	// argument (pktmon start --file-name, etl2pcap --out).
	WriteArgAfter string
	WriteData     []byte
}

// Match is the first rule for tool whose Args the arguments contain.
func Match(rules []Rule, tool string, args []string) (Rule, bool) {
	joined := strings.Join(args, " ")
	for _, r := range rules {
		if strings.EqualFold(r.Tool, tool) && strings.Contains(joined, r.Args) {
			return r, true
		}
	}
	return Rule{}, false
}

// Tools are the names diag runs the node's tools by.
var Tools = []string{"powershell.exe", "vfpctrl", "pktmon", "netsh"}

// Install puts the stand-ins first on PATH for t, playing rules, and
// returns a function that reads the calls made so far, one line each
// ("pktmon filter list").
func Install(t *testing.T, rules []Rule) (calls func() []string) {
	t.Helper()
	dir := binDir(t)
	work := t.TempDir()
	data, err := json.Marshal(rules)
	if err != nil {
		t.Fatal(err)
	}
	rulesPath := filepath.Join(work, "rules.json")
	if err := os.WriteFile(rulesPath, data, 0o600); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(work, "calls.log")
	t.Setenv("DIAG_STANDIN_RULES", rulesPath)
	t.Setenv("DIAG_STANDIN_LOG", logPath)
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return func() []string {
		b, _ := os.ReadFile(logPath)
		s := strings.TrimSpace(strings.ReplaceAll(string(b), "\r\n", "\n"))
		if s == "" {
			return nil
		}
		return strings.Split(s, "\n")
	}
}

// binDir is a directory holding the stand-in under every name of Tools.
func binDir(t *testing.T) string {
	t.Helper()
	if dir := os.Getenv("DIAG_STANDIN_BIN"); dir != "" {
		return dir
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go to build the tool stand-ins with, and no DIAG_STANDIN_BIN (make test-windows sets it)")
	}
	dir := t.TempDir()
	first := filepath.Join(dir, exeName("standin"))
	out, err := exec.Command(goTool, "build", "-o", first, "github.com/wincni/diag/tools/wine/standin").CombinedOutput()
	if err != nil {
		t.Fatalf("build the tool stand-ins: %v: %s", err, out)
	}
	data, err := os.ReadFile(first)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range Tools {
		if err := os.WriteFile(filepath.Join(dir, exeName(name)), data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// exeName is name as a file the platform runs ("pktmon.exe" on Windows).
func exeName(name string) string {
	if runtime.GOOS == "windows" && !strings.HasSuffix(name, ".exe") {
		return name + ".exe"
	}
	return name
}

// Count is how many calls start with prefix.
func Count(calls []string, prefix string) int {
	return len(slices.DeleteFunc(slices.Clone(calls), func(c string) bool { return !strings.HasPrefix(c, prefix) }))
}
