package monitor

import (
	"context"
	"errors"

	"github.com/wincni/diag/bundle"
)

// Taken is one round's state: a bundle, as diag collect writes it or as
// it was saved, and which outside sources answered while it was taken.
type Taken struct {
	Bundle *bundle.Bundle
	// Label names the state in logs and Events: the replayed file, or
	// "live".
	Label string
	// Sources maps a source name (SourceHNS, SourceKubernetes, ...) to
	// nil when it answered, or why it did not.
	Sources map[string]error
	release func()
}

// Close releases the round's bundle.
func (t *Taken) Close() {
	if t.release != nil {
		t.release()
		t.release = nil
	}
}

// Source gives the rounds their state.
type Source interface {
	// Take gathers one round's state. An error means there is none this
	// round (the round fails and the monitor goes on).
	Take(ctx context.Context) (*Taken, error)
	// Record writes a full redacted bundle of the moment t was taken to
	// path (the flight recorder).
	Record(ctx context.Context, t *Taken, path string) error
}

// ErrReplayDone is returned by a replay source after its last bundle.
var ErrReplayDone = errors.New("replay: every bundle has had its round")
