package collectors

import (
	"context"
	"fmt"
	"io/fs"
	"time"
)

// Collector gathers one part of a node's state.
type Collector struct {
	ID          string        // stable, used by --only/--skip and in the manifest
	Description string        // one line, for --help and progress
	Timeout     time.Duration // its own deadline; 0 means DefaultCollectorTimeout
	// Run writes the collector's files through out. An error with no file
	// written makes it failed; with files written, partial.
	Run func(ctx context.Context, e *Env, out *Output) error
}

// DefaultCollectorTimeout bounds a collector that sets no timeout.
const DefaultCollectorTimeout = 2 * time.Minute

// Env is everything a collector may touch on the node.
type Env struct {
	Runner Runner     // runs commands with argument lists, never a shell string
	FS     fs.FS      // the node's file system, rooted at / (or C:\)
	HNS    HNSSource  // HNS queries (Windows); nil elsewhere
	Kube   KubeSource // the API server, read-only; nil when not configured
	// KubeErr says why Kube is nil when a kubeconfig was found but not usable.
	KubeErr error
	// NodeName is this node's Kubernetes name (NODE_NAME, else the host name).
	NodeName string
	// Capture, when positive, asks for a packet capture of that length.
	Capture time.Duration
	// TempDir is where a collector may put scratch files (pktmon's ETL).
	TempDir string
	// MaxLogBytes caps each log tail.
	MaxLogBytes int64
}

// skipError marks a collector that found nothing to do here (no
// kubeconfig, API server unreachable): recorded as skipped, not failed.
type skipError struct{ reason string }

func (e skipError) Error() string { return e.reason }

// Skip returns an error that records the collector as skipped, the reason
// formatted as fmt.Sprintf does (as analyzers.Skip for a rule).
func Skip(format string, args ...any) error { return skipError{fmt.Sprintf(format, args...)} }
