package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/wincni/diag/tools/wine/standin/standintest"
)

func main() {
	if d := os.Getenv("DIAG_STANDIN_HOLD"); d != "" {
		// The grandchild: it inherited the tool's stdout and stderr and
		// keeps them open for d.
		hold, _ := time.ParseDuration(d)
		time.Sleep(hold)
		// Still alive: say so, for a test that expects it ended.
		if p := os.Getenv("DIAG_STANDIN_LOG"); p != "" {
			if f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
				fmt.Fprintln(f, "grandchild outlived the tool")
				f.Close()
			}
		}
		return
	}
	tool := strings.ToLower(strings.TrimSuffix(filepath.Base(os.Args[0]), filepath.Ext(os.Args[0])))
	args := os.Args[1:]
	if p := os.Getenv("DIAG_STANDIN_LOG"); p != "" {
		if f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
			// One line a call: a script's lines are joined.
			fmt.Fprintln(f, tool+" "+strings.NewReplacer("\r\n", " ", "\n", " ").Replace(strings.Join(args, " ")))
			f.Close()
		}
	}
	rules, err := readRules(os.Getenv("DIAG_STANDIN_RULES"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "standin:", err)
		os.Exit(99)
	}
	r, ok := standintest.Match(rules, tool, args)
	if !ok {
		fmt.Fprintf(os.Stderr, "standin: no rule for %s %s\n", tool, strings.Join(args, " "))
		os.Exit(98)
	}
	os.Exit(play(r, args))
}

func readRules(path string) ([]standintest.Rule, error) {
	if path == "" {
		return nil, fmt.Errorf("DIAG_STANDIN_RULES is not set")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var rules []standintest.Rule
	if err := json.Unmarshal(data, &rules); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rules, nil
}

// play does what r says and returns the exit status.
func play(r standintest.Rule, args []string) int {
	if r.WriteArgAfter != "" {
		for i, a := range args[:max(0, len(args)-1)] {
			if strings.EqualFold(a, r.WriteArgAfter) {
				if err := os.WriteFile(args[i+1], r.WriteData, 0o600); err != nil {
					fmt.Fprintln(os.Stderr, "standin:", err)
					return 97
				}
			}
		}
	}
	if r.BOM {
		os.Stdout.WriteString("\ufeff")
	}
	os.Stdout.WriteString(r.Stdout)
	os.Stderr.WriteString(r.Stderr)
	if r.Grandchild != "" {
		self, err := os.Executable()
		if err == nil {
			c := exec.Command(self)
			c.Env = append(os.Environ(), "DIAG_STANDIN_HOLD="+r.Grandchild)
			c.Stdout, c.Stderr = os.Stdout, os.Stderr
			err = c.Start()
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "standin: grandchild:", err)
			return 96
		}
	}
	if r.Hang {
		time.Sleep(time.Hour)
	}
	return r.Exit
}
