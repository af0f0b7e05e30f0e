// Package walkthrough runs the README's walkthrough with the Windows build
// of diag under Wine, as a user would: diag.exe as a process, its exit
// status and output, the node's tools on PATH (stand-ins replaying what a
// Calico VXLAN node printed). make test-windows runs it (DIAG_WINE64 set);
// elsewhere it skips.
package walkthrough

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/wincni/diag/bundle"
	"github.com/wincni/diag/golden"
	"github.com/wincni/diag/manifest"
	"github.com/wincni/diag/tools/wine/standin/standintest"
)

const root = "../../.."

// build compiles pkg for goos into dir/name.
func build(t *testing.T, goos, pkg, out string) {
	t.Helper()
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH=amd64", "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build %s for %s: %v\n%s", pkg, goos, err, b)
	}
}

// winPath is a Unix path as Wine shows it to Windows programs.
func winPath(p string) string { return `Z:` + strings.ReplaceAll(p, "/", `\`) }

type result struct {
	code           int
	stdout, stderr string
}

// wine runs diag.exe with args in dir.
func wine(t *testing.T, wine64, exe, dir string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(wine64, append([]string{exe}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	code := 0
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("wine64 %s: %v", strings.Join(args, " "), err)
	}
	return result{code, out.String(), errb.String()}
}

func TestWalkthroughUnderWine(t *testing.T) {
	wine64 := os.Getenv("DIAG_WINE64")
	if wine64 == "" {
		t.Skip("DIAG_WINE64 is not set: make test-windows runs this with Wine")
	}
	bin := t.TempDir()
	exe := filepath.Join(bin, "diag.exe")
	build(t, "windows", "./cmd/diag", exe)
	linux := filepath.Join(bin, "diag")
	build(t, "linux", "./cmd/diag", linux)
	tools := filepath.Join(bin, "tools")
	build(t, "windows", "./tools/wine/standin", filepath.Join(tools, "standin.exe"))
	data, err := os.ReadFile(filepath.Join(tools, "standin.exe"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range standintest.Tools {
		if err := os.WriteFile(filepath.Join(tools, strings.TrimSuffix(name, ".exe")+".exe"), data, 0o755); err != nil {
			t.Fatal(err)
		}
	}

	// What a Calico VXLAN node printed (the seed case), through PowerShell
	// 5.1 (a byte order mark first), vfpctrl and netsh.
	seed := filepath.Join(root, "testdata/bundles/seed-broken")
	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join(seed, p))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	standin := filepath.Join(root, "collectors/testdata/standin")
	readStandin := func(p string) string {
		b, err := os.ReadFile(filepath.Join(standin, p))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	rules := []standintest.Rule{
		{Tool: "powershell", Args: "Get-NetAdapter", BOM: true, Stdout: read("host/adapters.json")},
		{Tool: "powershell", Args: "Get-NetRoute -ErrorAction", BOM: true, Stdout: read("host/routes.json")},
		{Tool: "powershell", Args: "Get-NetFirewallProfile", BOM: true, Stdout: read("host/firewall.json")},
		{Tool: "powershell", Args: "CurrentVersion", BOM: true, Stdout: read("host/os.json")},
		{Tool: "powershell", Args: "kube-proxy.exe", BOM: true, Stdout: read("config/kube-proxy/cmdline.txt")},
		{Tool: "powershell", Args: "Get-WinEvent", BOM: true, Stdout: `{"Events":[]}`},
		{Tool: "vfpctrl", Args: "/format 1", Stdout: "ERROR: unknown option /format\r\n", Exit: 1},
		{Tool: "vfpctrl", Args: "/list-vmswitch-port", Stdout: readStandin("vfpctrl-list-vmswitch-port.txt")},
		{Tool: "vfpctrl", Args: "/list-rule", Stdout: read("vfp/port-D4C3B2A1-0F9E-8D7C-6B5A-493827161504.txt")},
		{Tool: "vfpctrl", Stdout: "Command succeeded!\r\n"},
		{Tool: "netsh", Args: "excludedportrange", Stdout: readStandin("netsh-excludedportrange-tcp.txt")},
		{Tool: "netsh", Args: "dynamicport", Stdout: readStandin("netsh-dynamicport-tcp.txt")},
	}
	rulesJSON, err := json.Marshal(rules)
	if err != nil {
		t.Fatal(err)
	}
	rulesPath := filepath.Join(bin, "rules.json")
	if err := os.WriteFile(rulesPath, rulesJSON, 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"WINEPATH=" + winPath(tools), "DIAG_STANDIN_RULES=" + winPath(rulesPath), "NODE_NAME=readme-node"}

	work := t.TempDir()
	for _, line := range golden.Commands(t, filepath.Join(root, "README.md"), "<!-- readme-test: walkthrough -->") {
		args := strings.Fields(line)
		if args[0] != "diag" {
			t.Fatalf("a walkthrough line that is not a diag command: %q", args)
		}
		r := wine(t, wine64, exe, work, env, args[1:]...)
		// 3 is an outcome: findings (analyze), a partial bundle (collect).
		if r.code != 0 && !(r.code == 3 && (args[1] == "analyze" || args[1] == "collect")) || strings.Contains(line, "--fail-on never") && r.code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", line, r.code, r.stdout, r.stderr)
		}
		t.Logf("%s: exit %d", line, r.code)
		if args[1] == "collect" && strings.TrimSpace(r.stdout) != "node.zip" {
			t.Errorf("collect printed %q, want the bundle's path", r.stdout)
		}
	}
	for _, f := range []string{"node.zip", "report.html", "ticket.zip", "ticket.zip.key", "ticket.html"} {
		if st, err := os.Stat(filepath.Join(work, f)); err != nil || st.Size() == 0 {
			t.Errorf("the walkthrough did not write %s: %v", f, err)
		}
	}

	// The bundle holds what the node's tools printed, without the byte
	// order mark; what Wine lacks (HNS) is said, not hidden.
	b, err := bundle.Open(filepath.Join(work, "node.zip"), bundle.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, name := range []string{"host/adapters.json", "host/routes.json", "host/firewall.json", "host/os.json", "config/kube-proxy/cmdline.txt"} {
		if got, err := b.ReadFile(name); err != nil || string(got) != read(name) {
			t.Errorf("%s in the bundle: %v, %.80q", name, err, got)
		}
	}
	status := map[string]string{}
	for _, c := range b.Manifest.Collectors {
		status[c.ID] = c.Status
	}
	for _, id := range []string{"host-adapters", "host-routes", "firewall", "os", "kube-proxy", "port-ranges", "vfp"} {
		if status[id] != manifest.StatusOK {
			t.Errorf("collector %s: %s", id, status[id])
		}
	}
	if status["hns-v2"] == manifest.StatusOK {
		t.Errorf("hns-v2 ok under Wine, which has no HNS")
	}
	t.Logf("collectors: %v", status)

	// analyze of the seed case: the Windows build says what the Linux
	// build says (JSON equal but for the path, as typed).
	in, _ := filepath.Abs(seed)
	lin, err := exec.Command(linux, "analyze", "-o", "json", "--fail-on", "never", in).Output()
	if err != nil {
		t.Fatalf("linux analyze: %v", err)
	}
	win := wine(t, wine64, exe, work, env, "analyze", "-o", "json", "--fail-on", "never", winPath(in))
	if win.code != 0 {
		t.Fatalf("windows analyze: exit %d: %s", win.code, win.stderr)
	}
	jsonPath := func(p string) string { b, _ := json.Marshal(p); return string(b[1 : len(b)-1]) }
	// The two ran at different times.
	when := regexp.MustCompile(`"generatedAt": "[^"]*"`)
	got := when.ReplaceAllString(strings.ReplaceAll(win.stdout, jsonPath(winPath(in)), jsonPath(in)), "")
	if want := when.ReplaceAllString(string(lin), ""); got != want {
		t.Errorf("analyze -o json differs between the Windows and Linux builds:\nwindows: %.600s\nlinux:   %.600s", got, want)
	}
}
