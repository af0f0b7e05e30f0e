package capture

import (
	"path"
	"strings"

	"github.com/wincni/diag/bundle"
	"github.com/wincni/diag/finding"
	"github.com/wincni/diag/snapshot"
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
	if opts.FlowsGrew != nil {
		opts.FlowsGrew(0) // the flows' room is made before the first packet
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

// AnalyzeBundles runs the capture rules on the captures inside the bundles
// of one analysis (paths[i] was read as snaps[i]; "-", standard input, has
// none) and adds what they find to res, in the report's order. A capture is
// read beside the nodes whose addresses are of its own kind: pseudonyms of
// its key, or real ones. labels[i] names the node as the bundle rules'
// findings do; include says which rule IDs were selected. What the decoder
// skipped or counted together (limits, offload, duplicates) becomes a note
// of the node, as the parsers' notes are.
func AnalyzeBundles(paths []string, snaps []*snapshot.Snapshot, labels []string, include func(id string) bool, opts Options, res *finding.Result) error {
	contexts := map[string]*Context{}
	for i, p := range paths {
		if p == "-" {
			continue
		}
		key := snaps[i].PseudonymKey()
		ctx, ok := contexts[key]
		if !ok {
			var same []*snapshot.Snapshot
			for _, s := range snaps {
				if s.PseudonymKey() == key {
					same = append(same, s)
				}
			}
			ctx = ContextFromSnapshots(same...)
			contexts[key] = ctx
		}
		b, err := bundle.Open(p, bundle.DefaultLimits)
		if err != nil {
			return err
		}
		o := opts
		o.Context, o.MTU = ctx, ctx.MTU
		rep, err := AnalyzeBundle(b, labels[i], o)
		b.Close()
		if err != nil {
			return err
		}
		if rep == nil {
			continue
		}
		for _, n := range rep.Notes {
			snaps[i].Notes = append(snaps[i].Notes, "capture: "+n)
		}
		for _, f := range rep.Findings {
			if include(f.ID) {
				f.Input = p
				res.Findings = append(res.Findings, f)
			}
		}
		for _, sk := range rep.Skipped {
			if include(sk.ID) {
				sk.Input = p
				res.Skipped = append(res.Skipped, sk)
			}
		}
	}
	finding.Sort(res.Findings)
	finding.LinkCauses(res.Findings)
	return nil
}
