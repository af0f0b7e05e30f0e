package main

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/spf13/cobra"
)

// version and commit are set at build time (make build, make dist):
// -ldflags "-X main.version=v0.1.0 -X main.commit=<git revision>".
var (
	version = "dev"
	commit  = ""
)

// buildInfo is what Go recorded of the build, decoded once: the root
// command, the --image default and diag version each ask for it, and every
// command builds the first two.
var buildInfo = sync.OnceValues(debug.ReadBuildInfo)

// toolCommit is the stamped commit, else the VCS revision Go recorded.
func toolCommit() string {
	if commit != "" {
		return commit
	}
	if bi, ok := buildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				return s.Value
			}
		}
	}
	return "unknown"
}

// toolVersion is the release version, else the module version and VCS
// revision the binary was built from.
func toolVersion() string {
	if version != "dev" {
		return version
	}
	if bi, ok := buildInfo(); ok {
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			return v
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				return "dev-" + s.Value[:12]
			}
		}
	}
	return version
}

func newVersionCommand(e *env) *cobra.Command {
	var output string
	c := &cobra.Command{
		Use:     "version",
		Short:   "Print diag's version",
		Long:    "version prints diag's version, the commit it was built from, the Go version it was built with and the platform (-o json for scripts)." + exitStatusCommon,
		Example: "  diag version\n  diag version -o json",
		Args:    maxArgs(0),
		RunE: func(*cobra.Command, []string) error {
			switch output {
			case "json":
				enc := json.NewEncoder(e.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(map[string]string{"version": toolVersion(), "commit": toolCommit(), "go": runtime.Version(), "platform": runtime.GOOS + "/" + runtime.GOARCH})
			case "table", "":
				_, err := fmt.Fprintf(e.stdout, "diag %s (commit %s, %s, %s/%s)\n", toolVersion(), toolCommit(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
				return err
			}
			return usageErrorf("--output must be table or json, not %q", output)
		},
	}
	c.Flags().StringVarP(&output, "output", "o", "table", "table or json")
	foldCase(c.Flags(), "output")
	return c
}
