package anonymize

import (
	"strings"
	"testing"
)

// TestLayoutWordsAsHostNames: a host or node named like a folder of the
// bundle (a control plane called k8s) must not rename that folder, nor
// the API groups and labels that carry the word (discovery.k8s.io,
// k8s-app): analyze would no longer find k8s/nodes.json. Such a name is
// replaced where a field states it and named as kept.
func TestLayoutWordsAsHostNames(t *testing.T) {
	for _, word := range []string{"k8s", "capture", "kubelet", "containerd", "hns", "vfp", "host", "logs", "config", "linux"} {
		a := testAnonymizer()
		a.AddName(KindHost, word)
		for _, p := range []string{word + "/nodes.json", "logs/" + word + "/x.log", "config/" + word + "/cmdline.txt"} {
			if got := a.entryName(p); got != p {
				t.Errorf("host %q: entry %s renamed to %s", word, p, got)
			}
		}
		for _, keep := range []string{`"apiVersion": "discovery.` + word + `.io/v1"`, `"` + word + `-app": "kube-dns"`} {
			if got := a.String(keep); got != keep {
				t.Errorf("host %q: %s changed to %s", word, keep, got)
			}
		}
		if got := a.String(`{"nodeName": "` + word + `"}`); strings.Contains(got, `"`+word+`"`) {
			t.Errorf("host %q: a field stating it keeps it: %s", word, got)
		}
		kept := a.Kept()
		if len(kept) != 1 || kept[0].Name != word {
			t.Errorf("host %q: not named as kept: %+v", word, kept)
		}
	}
}
