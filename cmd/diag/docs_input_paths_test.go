package main

import (
	"strings"
	"testing"
)

// A doc command whose input is one of the repository's paths (testdata/,
// analyzers/testdata/) is run, so that a misspelt or moved input fails the
// docs test as it fails the reader who types it: runnable must not take
// a missing repository file for a file of the reader's (node.zip) and skip
// the command (README's "diag analyze testdata/bundles/seed-fixed"
// misspelt seed-fixd passed TestDocsCommands).
func TestDocsCommandMissingRepositoryInputIsRun(t *testing.T) {
	t.Chdir("../..")
	for _, line := range []string{
		"analyze testdata/bundles/seed-fixd",
		"diff testdata/bundles/seed-broken testdata/bundles/seed-fixd",
		"capture decode testdata/captures/seed-syn-unanswerd.pcap",
	} {
		c := docCommand{page: "README.md", text: "diag " + line}
		cmd := docCommandOf(t, c, docArgs(strings.Fields(line)), true)
		if cmd == nil {
			t.Fatalf("%s: not parsed", line)
		}
		if !runnable(cmd) {
			t.Errorf("diag %s: skipped as a reader's file, though testdata/ is the repository's", line)
		}
	}
}
