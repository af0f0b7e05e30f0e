package main

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"
)

// A command given a context that ends (Ctrl-C in collect --cluster, which
// then analyzes) stops between its inputs and says how far it came.
func TestCommandsStopWithTheirContext(t *testing.T) {
	var out, errb bytes.Buffer
	e := &env{stdout: &out, stderr: &errb, getenv: func(string) string { return "" }, now: time.Now,
		isTerminal: func() bool { return false }, termWidth: func() int { return 120 }, stderrTerminal: func() bool { return false }}
	g := &globalOptions{color: "never"}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ao := defaultAnalyzeOptions()
	if err := ao.validate(); err != nil {
		t.Fatal(err)
	}
	err := runAnalyze(ctx, e, g, &ao, []string{seedBroken, seedFixed})
	if !errors.Is(err, context.Canceled) || out.Len() != 0 {
		t.Errorf("analyze: %v, wrote %d bytes", err, out.Len())
	}
	do := &diffOptions{reportFlags: reportFlags{output: "table"}, maxPart: "64MiB"}
	if err := do.validate([]string{seedBroken, seedFixed}); err != nil {
		t.Fatal(err)
	}
	err = runDiff(ctx, e, g, do, seedBroken, seedFixed)
	if !errors.Is(err, context.Canceled) || out.Len() != 0 {
		t.Errorf("diff: %v, wrote %d bytes", err, out.Len())
	}
}
