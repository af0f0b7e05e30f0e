// Package e2e runs diag collect --cluster, the binary a user runs, against
// a real control plane (package realcluster): kube-apiserver with RBAC,
// Pod Security admission and an audit log, etcd, and kwok playing the
// kubelets. Every scenario ends with no pod of diag's left, and with what
// diag said checked against what the server saw. make test-cluster runs
// it; without the control plane's binaries it is skipped.
package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Binaries built once for the package: diag, and the stand-in collector
// kwok runs for an exec.
var diagBin, standinBin string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if os.Getenv("DIAG_TESTCLUSTER_ENV") == "" {
		return m.Run() // each test skips, saying why
	}
	dir, err := os.MkdirTemp("", "diag-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	diagBin, standinBin = filepath.Join(dir, "diag"), filepath.Join(dir, "standin")
	for out, pkg := range map[string]string{diagBin: "../../cmd/diag", standinBin: "../clustertest/realcluster/standin"} {
		cmd := exec.Command("go", "build", "-ldflags=-X main.version=v0.0.0-e2e", "-o", out, pkg)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintf(os.Stderr, "build %s: %v\n", pkg, err)
			return 1
		}
	}
	// DIAG_E2E_DIAG runs the scenarios against another diag binary (an
	// older one, to see which scenarios it fails).
	if other := os.Getenv("DIAG_E2E_DIAG"); other != "" {
		diagBin = other
	}
	return m.Run()
}
