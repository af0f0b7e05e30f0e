package golden

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// Commands returns the commands of the fenced block that follows marker
// (an HTML comment such as "<!-- readme-test: walkthrough -->") in the
// document at path, one a line, their comments and blank lines left out:
// the document is what the test runs.
func Commands(t testing.TB, path, marker string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	state := 0 // 0 before the marker, 1 before the fence, 2 inside
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case state == 0 && strings.TrimSpace(line) == marker:
			state = 1
		case state == 1 && strings.HasPrefix(line, "```"):
			state = 2
		case state == 2 && strings.HasPrefix(line, "```"):
			return out
		case state == 2:
			cmd, _, _ := strings.Cut(line, "#")
			if cmd = strings.TrimSpace(cmd); cmd != "" {
				out = append(out, cmd)
			}
		}
	}
	t.Fatalf("%s: no complete block after %s", path, marker)
	return nil
}
