package bundle

import (
	"errors"
	"os"
	"testing"
)

// A file another program has open (without FILE_SHARE_DELETE, as os.Open
// and most editors open it) can be neither renamed nor replaced: the set is
// left as it was.
func TestReplaceHeldOpen(t *testing.T) {
	dir, zip, sum := zipAndSum(t)
	held, err := os.Open(sum)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	err = replaceSet([]replaceFile{{Tmp: zip + ".tmp", Dst: zip}, {Tmp: sum + ".tmp", Dst: sum}})
	var he *heldError
	if !errors.As(err, &he) || he.Path != sum {
		t.Fatalf("Replace: %v, want a *heldError for %s", err, sum)
	}
	if readTest(t, zip) != "old zip" || readTest(t, sum) != "old sum" || readTest(t, zip+".tmp") != "new zip" {
		t.Errorf("after the failure: %q %q %q", readTest(t, zip), readTest(t, sum), readTest(t, zip+".tmp"))
	}
	held.Close()
	noneAside(t, dir)
}
