package capture

import (
	"path"
	"strings"

	"github.com/wincni/diag/bundle"
)

// BundleCaptures lists the captures a bundle holds (capture/*.pcap,
// *.pcapng, *.cap, *.etl), and pktmon's ETL files anywhere in it
// (collectlogs keeps PktMon.etl beside its text files).
func BundleCaptures(b *bundle.Bundle) []string {
	var out []string
	for _, name := range b.Names() {
		dir, file := path.Split(name)
		lower := strings.ToLower(file)
		switch ext := path.Ext(lower); {
		case dir == "capture/" && (ext == ".pcap" || ext == ".pcapng" || ext == ".cap" || ext == ".etl"):
			out = append(out, name)
		case ext == ".etl" && strings.Contains(lower, "pktmon"):
			out = append(out, name)
		}
	}
	return out
}

// AnalyzeBundle analyzes the captures in a bundle with ctx (the bundles of
// the same run) as context. It returns nil when the bundle has none.
func AnalyzeBundle(b *bundle.Bundle, node string, opts Options) (*Report, error) {
	files := BundleCaptures(b)
	if len(files) == 0 {
		return nil, nil
	}
	a := NewAnalyzer(opts)
	for _, name := range files {
		rc, err := b.Open(name)
		if err != nil {
			return nil, err
		}
		src, err := NewSourceLimits(rc, b.Path()+": "+name, opts.Limits)
		if err != nil {
			rc.Close()
			return nil, err
		}
		err = a.ReadSource(src, name)
		rc.Close()
		if err != nil {
			return nil, err
		}
	}
	return a.Finish(node), nil
}
