package capture

import (
	"fmt"
	"net/netip"
	"sort"
	"strings"

	"github.com/wincni/diag/finding"
)

// CAP-11: packets dropped on the node, as pktmon saw them. Drops at VFP,
// and at the vSwitch on a container's or VM's port, fail: those sit on
// the pods' path only, and are the overlay's silent failures (a policy,
// an ACL, a missing route). With the bundles' pod subnets, drops of pod
// traffic elsewhere (the vSwitch's other ports, NDIS, TCP/IP) warn; the
// host's own drops are its business. Broadcast and multicast drops never
// count: a port's packet filter turns those away by design.
func (a *Analyzer) cap11(r *Report, add func(string, issue)) {
	var fail, warn []judgedDrop
	for _, f := range r.ETL {
		for _, d := range f.DropDetails {
			unicast := d.Events - d.Multicast
			if unicast == 0 {
				continue
			}
			switch {
			case d.Layer == "VFP" || d.Layer == "vSwitch" && d.compType == compTypeVmNic:
				fail = append(fail, judgedDrop{d, f.Path, unicast, d.group.flows})
			case a.opts.Context != nil:
				// Only the pod flows of a reason shared with host traffic.
				var pods []flowCount
				var n int64
				for _, fl := range d.group.flows {
					if a.podFlow(fl.dropFlow) {
						pods, n = append(pods, fl), n+fl.n
					}
				}
				if n == 0 {
					continue
				}
				if podPathLayer(d.Layer) {
					fail = append(fail, judgedDrop{d, f.Path, n, pods})
				} else {
					warn = append(warn, judgedDrop{d, f.Path, n, pods})
				}
			}
		}
	}
	a.reportDrops(add, finding.Fail, fail, "at VFP or the vSwitch, on the pods' path")
	a.reportDrops(add, finding.Warn, warn, "of pod traffic elsewhere on the node")
}

// compTypeVmNic is the ComponentType of a vSwitch port of a VM's or
// container's network adapter (VmsVmNic).
const compTypeVmNic = 5

// judgedDrop is a drop group with the events and flows that count.
type judgedDrop struct {
	ETLDrop
	file   string
	events int64
	flows  []flowCount
}

func (a *Analyzer) reportDrops(add func(string, issue), sev finding.Severity, drops []judgedDrop, where string) {
	if len(drops) == 0 {
		return
	}
	var ev []finding.Evidence
	var events int64
	reasons := map[string]int64{}
	var order []string
	subjects := map[string]bool{}
	for _, d := range drops {
		events += d.events
		if _, ok := reasons[d.Reason]; !ok {
			order = append(order, d.Reason)
		}
		reasons[d.Reason] += d.events
		var flows []string
		for _, fl := range d.flows {
			if len(flows) < maxListed {
				flows = append(flows, fl.dropFlow.String())
			}
			for _, ad := range []netip.Addr{fl.src, fl.dst, fl.innerSrc, fl.innerDst} {
				if ad.IsValid() && len(subjects) < 10 && a.isPod(ad) {
					subjects["address:"+ad.String()] = true
				}
			}
		}
		if len(ev) < 20 {
			note := fmt.Sprintf("%d drop events from %s", d.events, d.First)
			if len(flows) > 0 {
				note += ": " + strings.Join(flows, "; ")
			}
			ev = append(ev, finding.Evidence{File: d.file, Object: "component " + d.Component, Field: "DropReason at DropLocation",
				Value: fmt.Sprintf("%s (%d) at %s", d.Reason, d.ReasonCode, d.Location), Note: note})
		}
	}
	var parts []string
	for _, name := range order {
		parts = append(parts, fmt.Sprintf("%s ×%d", name, reasons[name]))
	}
	var subj []string
	for s := range subjects {
		subj = append(subj, s)
	}
	sort.Strings(subj)
	add("CAP-11", issue{severity: sev, summary: fmt.Sprintf("pktmon saw %d packet drop events %s: %s", events, where, strings.Join(parts, ", ")),
		evidence: ev, subjects: subj})
}

// podFlow says whether an address of a dropped packet is a pod's (in
// the bundles' pod subnets).
func (a *Analyzer) podFlow(fl dropFlow) bool {
	for _, ad := range []netip.Addr{fl.src, fl.dst, fl.innerSrc, fl.innerDst} {
		if ad.IsValid() && a.isPod(ad) {
			return true
		}
	}
	return false
}

func (a *Analyzer) isPod(ad netip.Addr) bool {
	if a.opts.Context == nil {
		return false
	}
	for _, p := range a.opts.Context.PodPrefixes {
		if p.Contains(ad.Unmap()) {
			return true
		}
	}
	return false
}
