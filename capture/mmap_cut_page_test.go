//go:build linux

package capture

import (
	"fmt"
	"os"
	"testing"
)

// A mapped capture cut where a page does not end (almost every cut) keeps
// the head of that page in the mapping, and the kernel shows the rest of
// the page as zeros, not as a fault: those zeros are no packets. Reading
// the mapped file cut after it was opened reports what reading the cut
// file reports, packets and notes (but the note that it was cut while it
// was read), whether the cut falls on a record's start, in a record's
// header, or leaves the file header alone.
func TestMappedCutInsideAPageReportsNoZeroRecords(t *testing.T) {
	orig := bigCapture(t, 0)
	data, err := os.ReadFile(orig)
	if err != nil {
		t.Fatal(err)
	}
	recs := recordOffsets(data)
	cuts := []int64{recs[1000], recs[1000] + 5, 1<<20 + 16, 24}
	for _, cut := range cuts {
		if cut%4096 == 0 {
			t.Fatalf("cut %d ends a page: it tests nothing here", cut)
		}
		for _, how := range []string{"serial", "pager"} {
			if err := os.WriteFile(orig, data, 0o600); err != nil {
				t.Fatal(err)
			}
			got, src := readMappedCut(t, orig, cut, how == "pager")
			gotNotes := notesButCut(src)
			want, wantNotes := readCut(t, orig)
			if got != want || fmt.Sprint(gotNotes) != fmt.Sprint(wantNotes) {
				t.Errorf("cut at byte %d, %s: %d packets, notes %q; the cut file read: %d packets, notes %q", cut, how, got, gotNotes, want, wantNotes)
			}
		}
	}
}
