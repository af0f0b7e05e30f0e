package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// windowsBinary is how a HostProcess pod's command names diag.exe.
const windowsBinary = `%CONTAINER_SANDBOX_MOUNT_POINT%\diag.exe`

func main() {
	args, err := diagArgs(filepath.Base(os.Args[0]), os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "standin:", err)
		os.Exit(127)
	}
	switch behave := os.Getenv("DIAG_STANDIN_BEHAVE"); behave {
	case "ok", "":
		os.Exit(runDiag(args))
	case "partial":
		if code := runDiag(args); code != 0 {
			os.Exit(code)
		}
		os.Exit(3)
	case "fail":
		fmt.Fprintln(os.Stderr, "diag: collect: HNS: access is denied")
		os.Exit(1)
	case "hang":
		for {
			time.Sleep(time.Hour)
		}
	default:
		fmt.Fprintf(os.Stderr, "standin: DIAG_STANDIN_BEHAVE %q unknown\n", behave)
		os.Exit(127)
	}
}

// diagArgs are diag's arguments in the command kwok was given.
func diagArgs(name string, args []string) ([]string, error) {
	switch name {
	case "cmd.exe":
		if len(args) < 2 || args[0] != "/c" || args[1] != windowsBinary {
			return nil, fmt.Errorf("cmd.exe %q: not the command a HostProcess pod runs diag with", args)
		}
		args = args[2:]
	case "diag":
	default:
		return nil, fmt.Errorf("invoked as %s", name)
	}
	if len(args) == 0 || args[0] != "collect" {
		return nil, fmt.Errorf("diag %q: not diag collect", args)
	}
	return args, nil
}

func runDiag(args []string) int {
	cmd := exec.Command(os.Getenv("DIAG_STANDIN_DIAG"), args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, os.Stdout, os.Stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	fmt.Fprintln(os.Stderr, "standin:", err)
	return 127
}
