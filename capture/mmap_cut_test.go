//go:build linux

package capture

import (
	"testing"
)

// A mapped capture cut after it was opened (a capture rotated or truncated
// under the reader) reports every whole packet before the cut, as reading
// the cut file does: none of the batch being framed when the cut is met
// is lost.
func TestMappedCutKeepsEveryPacketBeforeTheCut(t *testing.T) {
	for _, cut := range []int64{2 << 20, 3<<20 + 1234} {
		for _, how := range []string{"serial", "pager"} {
			path := bigCapture(t, 0)
			got, _ := readMappedCut(t, path, cut, how == "pager")

			want, _ := readCut(t, path)
			if got != want {
				t.Errorf("cut at %d bytes, %s: %d packets, the cut file read holds %d", cut, how, got, want)
			}
		}
	}
}
