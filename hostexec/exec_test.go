package hostexec

import (
	"context"
	"os/exec"
	"strings"
	"testing"
)

func TestFirstLineClean(t *testing.T) {
	for in, want := range map[string]string{
		"\ufeffAccess is denied.\r\nAt line:1": "Access is denied.",
		"\ufeff\x00a\x00b\x1b[31m":             "ab [31m",
		strings.Repeat("é", 300):               strings.Repeat("é", 200) + "...",
	} {
		if got := FirstLine(in); got != want {
			t.Errorf("FirstLine(%q) = %q, want %q", in, got, want)
		}
	}
}

// By default a tool's standard error goes into a failure's error, not its
// output; with Combined it is in the output, and the error is the exit
// status alone (the caller reads the words).
func TestExecOutputs(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh here")
	}
	script := "echo out; echo 'err line' >&2; exit 3"
	out, err := Exec{}.Run(context.Background(), sh, "-c", script)
	if string(out) != "out\n" || err == nil || !strings.HasSuffix(err.Error(), "exit status 3: err line") || !strings.HasPrefix(err.Error(), sh+": ") {
		t.Errorf("default: %q, %v", out, err)
	}
	out, err = Exec{Combined: true}.Run(context.Background(), sh, "-c", script)
	if !strings.Contains(string(out), "out\n") || !strings.Contains(string(out), "err line\n") || err == nil || err.Error() != "exit status 3" {
		t.Errorf("combined: %q, %v", out, err)
	}
	if out, err := (Exec{}).Run(context.Background(), sh, "-c", "echo ok"); err != nil || string(out) != "ok\n" {
		t.Errorf("success: %q, %v", out, err)
	}
}
