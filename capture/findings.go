package capture

import (
	"fmt"
	"net"
	"net/netip"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/wincni/diag/finding"
)

// Report is the outcome of analyzing captures.
type Report struct {
	Result
	Findings []finding.Finding `json:"findings"`
	Skipped  []finding.Skipped `json:"skipped"`
	Notes    []string          `json:"notes,omitempty"`
}

// maxListed bounds how many flows or addresses one finding names.
const maxListed = 5

// Finish turns the accumulated state into findings. node labels them (the
// bundle's node, or the capture file).
func (a *Analyzer) Finish(node string) *Report {
	r := &Report{Result: a.res, Findings: []finding.Finding{}, Skipped: []finding.Skipped{}}
	r.Tunnels = append([]*Tunnel{}, a.tunnelOrder...)
	r.Flows = append([]*Flow{}, a.flowOrder...)
	for _, fl := range r.Flows {
		fl.State = tcpState(fl)
		fl.Last = time.Unix(0, fl.lastNano).UTC()
	}
	if a.otherFlows.Packets > 0 {
		u := a.otherFlows
		u.Flows = max(1, a.flowOver.hll.estimate())
		r.UntrackedFlows = &u
	}
	if a.otherTunnels.Packets > 0 {
		u := a.otherTunnels
		u.Tunnels = max(1, a.tunOver.hll.estimate())
		r.UntrackedTunnels = &u
	}
	sort.SliceStable(r.Tunnels, func(i, j int) bool { return r.Tunnels[i].Packets > r.Tunnels[j].Packets })
	sort.SliceStable(r.Flows, func(i, j int) bool { return r.Flows[i].Packets > r.Flows[j].Packets })

	add := func(id string, is issue) {
		r.Findings = append(r.Findings, ruleByID(id).Complete(finding.Finding{Severity: is.severity, Node: node,
			Summary: is.summary, Evidence: is.evidence, Subjects: is.subjects}))
	}
	skip := func(id, reason string) {
		r.Skipped = append(r.Skipped, finding.Skipped{ID: id, Node: node, Reason: reason})
	}

	pods := a.podPrefixes() // CAP-01 and NAT-04's
	a.cap01(pods, add, skip)
	a.cap02(r, add)
	a.cap03(r, add, skip)
	a.cap04(r, add, skip)
	a.cap05(r, add)
	a.cap06(r, add)
	a.cap07(r, add, skip)
	a.cap08(add)
	a.cap09(r, add)
	a.cap10(add)
	a.cap11(r, add)
	a.nat04(pods, add, skip)
	a.notes(r)
	sort.SliceStable(r.Findings, func(i, j int) bool {
		if r.Findings[i].Severity != r.Findings[j].Severity {
			return r.Findings[i].Severity > r.Findings[j].Severity
		}
		return r.Findings[i].ID < r.Findings[j].ID
	})
	return r
}

type issue struct {
	severity finding.Severity
	summary  string
	evidence []finding.Evidence
	subjects []string
}

func tcpState(fl *Flow) string {
	if fl.Proto != "tcp" {
		return ""
	}
	switch {
	case fl.rsts > 0:
		return "reset"
	case fl.syns > 0 && fl.synAcks == 0:
		return "syn-sent"
	case fl.fins > 0:
		return "closed"
	case fl.synAcks > 0:
		return "established"
	}
	return "mid-stream"
}

func flowString(fl *Flow) string {
	if fl.SrcPort == 0 && fl.DstPort == 0 {
		return fmt.Sprintf("%s → %s (%s)", fl.Src, fl.Dst, fl.Proto)
	}
	return fmt.Sprintf("%s → %s (%s)", netip.AddrPortFrom(fl.Src, fl.SrcPort), netip.AddrPortFrom(fl.Dst, fl.DstPort), fl.Proto)
}

func tunnelString(src, dst netip.Addr, vni uint32) string {
	return fmt.Sprintf("%s → %s (VNI %d)", src, dst, vni)
}

func listed[T any](items []T, f func(T) string) string {
	var parts []string
	for i, it := range items {
		if i == maxListed {
			parts = append(parts, fmt.Sprintf("and %d more", len(items)-maxListed))
			break
		}
		parts = append(parts, f(it))
	}
	return strings.Join(parts, "; ")
}

// CAP-01: pod-to-pod traffic without encapsulation and without an
// encapsulated twin (pktmon also logs decapsulated copies; those have one).
// podPrefixes are the pod subnets: the bundles', else those the tunnels
// carry (tracked flows and untracked alike), as /24s (IPv4) and /64s.
func (a *Analyzer) podPrefixes() *prefixSet {
	var prefixes []netip.Prefix
	if c := a.opts.Context; c != nil {
		prefixes = append(prefixes, c.PodPrefixes...)
	}
	if len(prefixes) == 0 {
		seen := map[netip.Prefix]bool{}
		for _, fl := range a.flowOrder {
			for _, ad := range []netip.Addr{fl.Src, fl.Dst} {
				if p, ok := podPrefixOf(ad); ok && !seen[p] {
					seen[p] = true
					prefixes = append(prefixes, p)
				}
			}
		}
		for p := range a.otherPrefixes {
			if !seen[p] {
				prefixes = append(prefixes, p)
			}
		}
	}
	return newPrefixSet(prefixes)
}

func podPrefixOf(ad netip.Addr) (netip.Prefix, bool) {
	bits := 24
	if ad.Is6() {
		bits = 64
	}
	p, err := ad.Prefix(bits)
	return p, err == nil
}

// prefixSet finds the most specific prefix holding an address (a node's
// pod subnet before the cluster CIDR) with a lookup per prefix length, not
// per prefix: a capture can name tens of thousands of /24s.
type prefixSet struct {
	bits []int // most specific first
	set  map[netip.Prefix]bool
}

func newPrefixSet(prefixes []netip.Prefix) *prefixSet {
	s := &prefixSet{set: map[netip.Prefix]bool{}}
	lens := map[int]bool{}
	for _, p := range prefixes {
		s.set[p.Masked()] = true
		if !lens[p.Bits()] {
			lens[p.Bits()] = true
			s.bits = append(s.bits, p.Bits())
		}
	}
	sort.Sort(sort.Reverse(sort.IntSlice(s.bits)))
	return s
}

func (s *prefixSet) empty() bool { return len(s.set) == 0 }

func (a *Analyzer) noPodPrefixes(id string, skip func(string, string)) {
	if a.opts.Context == nil {
		skip(id, "no pod subnets known: the capture has no VXLAN traffic and no --bundle was given")
	} else {
		skip(id, "no pod subnets known: the capture has no VXLAN traffic and the bundle names none (no HNS network, no Kubernetes Nodes)")
	}
}

func subnetOf(s *prefixSet, ad netip.Addr) (netip.Prefix, bool) {
	for _, b := range s.bits {
		if p, err := ad.Prefix(b); err == nil && s.set[p] {
			return p, true
		}
	}
	return netip.Prefix{}, false
}

func (a *Analyzer) cap01(prefixes *prefixSet, add func(string, issue), skip func(string, string)) {
	if prefixes.empty() {
		a.noPodPrefixes("CAP-01", skip)
		return
	}
	subnet := func(ad netip.Addr) (netip.Prefix, bool) { return subnetOf(prefixes, ad) }
	var encap map[[2]netip.AddrPort]bool
	if len(a.plain) > 0 { // only unencapsulated flows are looked up in it
		encap = make(map[[2]netip.AddrPort]bool, 2*len(a.flowOrder))
		for _, fl := range a.flowOrder {
			encap[[2]netip.AddrPort{netip.AddrPortFrom(fl.Src, fl.SrcPort), netip.AddrPortFrom(fl.Dst, fl.DstPort)}] = true
			encap[[2]netip.AddrPort{netip.AddrPortFrom(fl.Dst, fl.DstPort), netip.AddrPortFrom(fl.Src, fl.SrcPort)}] = true
		}
	}
	var leaks []*Flow
	for _, fl := range a.plain {
		ps, okS := subnet(fl.Src)
		pd, okD := subnet(fl.Dst)
		if !okS || !okD || ps == pd {
			continue
		}
		if encap[[2]netip.AddrPort{netip.AddrPortFrom(fl.Src, fl.SrcPort), netip.AddrPortFrom(fl.Dst, fl.DstPort)}] {
			continue
		}
		// A twin among the untracked flows (past --max-flows) counts too:
		// the filter can say yes wrongly (a leak unreported), never no.
		if a.flowOver.bloomHas(a.flowOver.pairHash(fl.Src.As16(), fl.SrcPort, fl.Dst.As16(), fl.DstPort)) {
			continue
		}
		leaks = append(leaks, fl)
	}
	if len(leaks) == 0 {
		return
	}
	sort.Slice(leaks, func(i, j int) bool { return leaks[i].Packets > leaks[j].Packets })
	var ev []finding.Evidence
	var subjects []string
	for i, fl := range leaks {
		if i < 50 {
			ev = append(ev, finding.Evidence{Object: "flow " + flowString(fl), Field: "encapsulation", Value: "none (" + strconv.FormatInt(fl.Packets, 10) + " packets)", Expected: "VXLAN"})
		}
		if i < maxListed {
			subjects = append(subjects, "address:"+fl.Src.String())
		}
	}
	add("CAP-01", issue{summary: fmt.Sprintf("%d pod-to-pod flow(s) cross the underlay without VXLAN: %s", len(leaks), listed(leaks, flowString)),
		evidence: ev, subjects: subjects})
}

// NAT-04: ICMP between a pod and an address outside the cluster, on the
// wire with the pod's own address: VFP does not NAT ICMP, by design.
func (a *Analyzer) nat04(prefixes *prefixSet, add func(string, issue), skip func(string, string)) {
	if prefixes.empty() {
		a.noPodPrefixes("NAT-04", skip)
		return
	}
	if a.prefixesCut {
		skip("NAT-04", fmt.Sprintf("the pod subnets are not all known: the flows past the %d tracked ones (%s raises the limit) name more than %d subnets",
			a.lim.MaxFlows, FlagMaxFlows, maxOtherPrefixes))
		return
	}
	var pings []*Flow
	for _, fl := range a.plain {
		if fl.Proto != "icmp" {
			continue
		}
		_, srcPod := subnetOf(prefixes, fl.Src)
		_, dstPod := subnetOf(prefixes, fl.Dst)
		if srcPod == dstPod || a.nodeAddress(fl.Src) || a.nodeAddress(fl.Dst) {
			continue // pod to pod is CAP-01's; a node's own address is not NATed anyway
		}
		pings = append(pings, fl)
	}
	if len(pings) == 0 {
		return
	}
	sort.Slice(pings, func(i, j int) bool { return pings[i].Packets > pings[j].Packets })
	var ev []finding.Evidence
	for i, fl := range pings {
		if i < 20 {
			ev = append(ev, finding.Evidence{Object: "flow " + flowString(fl), Field: "source address", Value: "a pod address (" + strconv.FormatInt(fl.Packets, 10) + " packets)",
				Expected: "by design on Windows: ICMP is not translated by OutBoundNAT"})
		}
	}
	add("NAT-04", issue{summary: fmt.Sprintf("%d ICMP flow(s) between pods and addresses outside the cluster leave without NAT (%s): ping to external addresses does not work from Windows pods, by design; TCP and UDP are translated",
		len(pings), listed(pings, flowString)), evidence: ev})
}

func (a *Analyzer) nodeAddress(ad netip.Addr) bool {
	if c := a.opts.Context; c != nil {
		_, ok := c.NodeAddrs[ad]
		return ok
	}
	return false
}

// CAP-02: SYNs retransmitted, never answered; grouped by tunnel.
func (a *Analyzer) cap02(r *Report, add func(string, issue)) {
	type group struct {
		src, dst netip.Addr
		vni      uint32
		flows    []*Flow
	}
	groups := map[[2]netip.Addr]*group{}
	var order []*group
	for _, fl := range a.flowOrder {
		if fl.Proto != "tcp" || fl.syns < 2 || fl.synAcks > 0 {
			continue
		}
		k := [2]netip.Addr{fl.TunnelSrc, fl.TunnelDst}
		g, ok := groups[k]
		if !ok {
			g = &group{src: fl.TunnelSrc, dst: fl.TunnelDst, vni: fl.VNI}
			groups[k] = g
			order = append(order, g)
		}
		g.flows = append(g.flows, fl)
	}
	for _, g := range order {
		var ev []finding.Evidence
		for i, fl := range g.flows {
			if i == 50 {
				break
			}
			ev = append(ev, finding.Evidence{Object: "flow " + flowString(fl), Field: "SYN sent / SYN-ACK received",
				Value: fmt.Sprintf("%d / 0", fl.syns), Expected: "a SYN-ACK", Note: fmt.Sprintf("first %s, last %s", fl.First.UTC().Format("15:04:05.000"), fl.Last.UTC().Format("15:04:05.000"))})
		}
		ev = append(ev, finding.Evidence{Object: "tunnel " + tunnelString(g.src, g.dst, g.vni), Field: "outer destination", Value: g.dst.String(),
			Note: a.whose(g.dst)})
		summary := fmt.Sprintf("TCP handshake never completes in tunnel %s: %s — SYNs retransmitted, no SYN-ACK",
			tunnelString(g.src, g.dst, g.vni), listed(g.flows, func(fl *Flow) string {
				return fmt.Sprintf("%s sent %d times", flowString(fl), fl.syns)
			}))
		add("CAP-02", issue{summary: summary, evidence: ev, subjects: []string{"address:" + g.dst.String(), "address:" + g.flows[0].Dst.String()}})
	}
}

// whose says what the context knows of an address.
func (a *Analyzer) whose(ad netip.Addr) string {
	if c := a.opts.Context; c != nil {
		if who, ok := c.NodeAddrs[ad]; ok {
			return who
		}
		return "no node's address in the bundles"
	}
	return ""
}

func (a *Analyzer) expectedVNI() (uint32, string) {
	if a.opts.ExpectedVNI != 0 {
		return a.opts.ExpectedVNI, "--vni"
	}
	if c := a.opts.Context; c != nil && c.ExpectedVNI != 0 {
		return c.ExpectedVNI, c.VNISource
	}
	return 0, ""
}

// CAP-03: VNIs other than the expected one.
func (a *Analyzer) cap03(r *Report, add func(string, issue), skip func(string, string)) {
	for _, t := range a.tunnelOrder {
		a.vnis[t.VNI] += t.Packets
	}
	want, from := a.expectedVNI()
	if want == 0 {
		if len(a.vnis) > 0 {
			skip("CAP-03", "no expected VNI: give --vni or --bundle")
		}
		return
	}
	var vnis []uint32
	for v := range a.vnis {
		if v != want {
			vnis = append(vnis, v)
		}
	}
	sort.Slice(vnis, func(i, j int) bool { return vnis[i] < vnis[j] })
	// Evidence per VNI in one pass over the tunnels: there can be tens of
	// thousands of both.
	evOf := map[uint32][]finding.Evidence{}
	for _, t := range a.tunnelOrder {
		if ev := evOf[t.VNI]; t.VNI != want && len(ev) < 20 {
			evOf[t.VNI] = append(ev, finding.Evidence{Object: "tunnel " + tunnelString(t.Src, t.Dst, t.VNI), Field: "VNI", Value: strconv.Itoa(int(t.VNI)),
				Expected: strconv.Itoa(int(want)), Note: fmt.Sprintf("%d packets", t.Packets)})
		}
	}
	for _, v := range vnis {
		ev := evOf[v]
		note := ""
		if v < 4096 {
			note = "; Windows nodes need 4096 or more"
		}
		add("CAP-03", issue{summary: fmt.Sprintf("%d VXLAN packets carry VNI %d, expected %d (from %s)%s", a.vnis[v], v, want, from, note),
			evidence: ev})
	}
}

// CAP-04: outer addresses that are no node's.
func (a *Analyzer) cap04(r *Report, add func(string, issue), skip func(string, string)) {
	c := a.opts.Context
	if c == nil {
		skip("CAP-04", "no bundle: give --bundle to compare tunnel endpoints with the nodes' addresses")
		return
	}
	if len(c.NodeAddrs) == 0 {
		skip("CAP-04", "the bundle knows no node addresses (no HNS network, no Kubernetes Nodes)")
		return
	}
	unknown := map[netip.Addr]int64{}
	var order []netip.Addr
	for _, t := range a.tunnelOrder {
		for _, ad := range []netip.Addr{t.Src, t.Dst} {
			if _, known := c.NodeAddrs[ad]; !known {
				if _, seen := unknown[ad]; !seen {
					order = append(order, ad)
				}
				unknown[ad] += t.Packets
			}
		}
	}
	evOf := map[netip.Addr][]finding.Evidence{}
	for _, t := range a.tunnelOrder {
		for i, ad := range []netip.Addr{t.Src, t.Dst} {
			if _, bad := unknown[ad]; !bad || i == 1 && t.Dst == t.Src || len(evOf[ad]) >= 20 {
				continue
			}
			evOf[ad] = append(evOf[ad], finding.Evidence{Object: "tunnel " + tunnelString(t.Src, t.Dst, t.VNI), Field: "outer address", Value: ad.String(),
				Note: fmt.Sprintf("%d packets", t.Packets)})
		}
	}
	for _, ad := range order {
		ev := evOf[ad]
		add("CAP-04", issue{summary: fmt.Sprintf("%d VXLAN packets to or from %s, which is no node's VTEP or InternalIP in the bundles", unknown[ad], ad),
			evidence: ev, subjects: []string{"address:" + ad.String()}})
	}
}

// CAP-05: outer fragments and oversize packets (offload artefacts excluded).
func (a *Analyzer) cap05(r *Report, add func(string, issue)) {
	for _, t := range a.tunnelOrder {
		if t.fragments > 0 {
			add("CAP-05", issue{summary: fmt.Sprintf("%d outer IP fragments of VXLAN in tunnel %s: encapsulated packets (50 bytes bigger) exceed the path MTU",
				t.fragments, tunnelString(t.Src, t.Dst, t.VNI)),
				evidence: []finding.Evidence{{Object: "tunnel " + tunnelString(t.Src, t.Dst, t.VNI), Field: "fragments", Value: strconv.FormatInt(t.fragments, 10), Expected: "0"}}})
		}
		if t.oversize > 0 {
			add("CAP-05", issue{summary: fmt.Sprintf("%d VXLAN packets in tunnel %s are larger than the %d-byte MTU",
				t.oversize, tunnelString(t.Src, t.Dst, t.VNI), a.opts.MTU),
				evidence: []finding.Evidence{{Object: "tunnel " + tunnelString(t.Src, t.Dst, t.VNI), Field: "IP length", Value: "> " + strconv.Itoa(a.opts.MTU), Expected: "≤ MTU"}}})
		}
	}
}

// CAP-06: checksum errors.
func (a *Analyzer) cap06(r *Report, add func(string, issue)) {
	for _, t := range a.tunnelOrder {
		if t.badChecksum > 0 {
			add("CAP-06", issue{summary: fmt.Sprintf("%d inner packets with bad checksums in tunnel %s (of %d)", t.badChecksum, tunnelString(t.Src, t.Dst, t.VNI), t.Packets),
				evidence: []finding.Evidence{{Object: "tunnel " + tunnelString(t.Src, t.Dst, t.VNI), Field: "inner checksum errors", Value: strconv.FormatInt(t.badChecksum, 10), Expected: "0",
					Note: "partial (offloaded) checksums and super-packets are not counted"}}})
		}
	}
}

// CAP-07: wrong inner destination MACs.
func (a *Analyzer) cap07(r *Report, add func(string, issue), skip func(string, string)) {
	c := a.opts.Context
	if c == nil {
		skip("CAP-07", "no bundle with DR MACs: give --bundle")
		return
	}
	if len(c.DrMACs) == 0 {
		skip("CAP-07", "the bundle has no DR MACs (no overlay HNS network)")
		return
	}
	for _, t := range a.tunnelOrder {
		if len(t.wrongMAC) == 0 {
			continue
		}
		want := c.DrMACs[t.Dst]
		var ev []finding.Evidence
		var total int64
		var macs []string
		for mac, n := range t.wrongMAC {
			m := net.HardwareAddr(mac[:]).String()
			macs = append(macs, m)
			total += n
			ev = append(ev, finding.Evidence{Object: "tunnel " + tunnelString(t.Src, t.Dst, t.VNI), Field: "inner destination MAC", Value: m, Expected: want,
				Note: fmt.Sprintf("%d packets; %s", n, a.whose(t.Dst))})
		}
		sort.Strings(macs)
		if t.wrongMACOther > 0 {
			total += t.wrongMACOther
			macs = append(macs, fmt.Sprintf("and others (%d frames)", t.wrongMACOther))
		}
		add("CAP-07", issue{summary: fmt.Sprintf("%d inner frames sent to VTEP %s carry destination MAC %s, not its DR MAC %s",
			total, t.Dst, strings.Join(macs, ", "), want), evidence: ev, subjects: []string{"address:" + t.Dst.String()}})
	}
}

// CAP-08: malformed VXLAN.
func (a *Analyzer) cap08(add func(string, issue)) {
	if n := a.mal[malformedIFlag]; n > 0 {
		add("CAP-08", issue{summary: fmt.Sprintf("%d packets on the VXLAN port have the I flag clear: not valid VXLAN", n),
			evidence: []finding.Evidence{{Field: "VXLAN flags", Value: "I bit clear", Expected: "0x08 set", Note: fmt.Sprintf("%d packets", n)}}})
	}
	if n := a.mal[malformedShort]; n > 0 {
		add("CAP-08", issue{summary: fmt.Sprintf("%d packets on the VXLAN port are shorter than the 8-byte VXLAN header", n),
			evidence: []finding.Evidence{{Field: "UDP payload", Value: "< 8 bytes", Expected: "VXLAN header (8 bytes) and a frame", Note: fmt.Sprintf("%d packets", n)}}})
	}
	// Valid VXLAN whose inner packet contradicts itself: a sender or a
	// middlebox that corrupts frames, or a capture tool that mangles them.
	inner := []struct {
		kind                     uint8
		what, field, value, want string
	}{
		{malformedInnerHeader, "have an inner IP header that contradicts itself", "inner IP header", "IPv4 header length under 20, total length under the header length, or IPv6 extension headers past the payload", "a consistent IP header"},
		{malformedInnerLength, "have an inner IP length beyond the end of the frame (not cut by the snap length, and too small to be an offload super-packet)", "inner IP header", "IP total length > bytes in the frame", "IP total length within the frame"},
		{malformedInnerL4, "have an inner IP length too short for its transport header", "inner IP header", "IP payload shorter than the TCP/UDP/ICMP header", "the whole transport header"},
		// RFC 768 lets a datagram end before the IP payload, not after:
		// its checksum cannot be verified, and it is no corrupt checksum.
		{malformedInnerUDP, "have an inner UDP length beyond the IP payload or under 8", "inner UDP header", "UDP length > IP payload, or < 8", "8 <= UDP length <= IP payload"},
	}
	for _, k := range inner {
		if n := a.mal[k.kind]; n > 0 {
			add("CAP-08", issue{summary: fmt.Sprintf("%d VXLAN packets %s", n, k.what),
				evidence: []finding.Evidence{{Field: k.field, Value: k.value, Expected: k.want, Note: fmt.Sprintf("%d packets", n)}}})
		}
	}
}

// CAP-09: resets and ICMP errors inside the tunnel.
func (a *Analyzer) cap09(r *Report, add func(string, issue)) {
	var resets []*Flow
	for _, fl := range a.flowOrder {
		if fl.rsts > 0 {
			resets = append(resets, fl)
		}
	}
	if len(resets) > 0 {
		var ev []finding.Evidence
		for i, fl := range resets {
			if i == 50 {
				break
			}
			ev = append(ev, finding.Evidence{Object: "flow " + flowString(fl), Field: "TCP RST", Value: strconv.Itoa(int(fl.rsts)),
				Note: "in tunnel " + tunnelString(fl.TunnelSrc, fl.TunnelDst, fl.VNI)})
		}
		add("CAP-09", issue{summary: fmt.Sprintf("%d flow(s) reset inside the tunnel: %s", len(resets), listed(resets, flowString)), evidence: ev})
	}
	for _, t := range a.tunnelOrder {
		if t.icmpUnreach == 0 && t.icmpFragNeeded == 0 {
			continue
		}
		add("CAP-09", issue{summary: fmt.Sprintf("ICMP errors inside tunnel %s: %d destination unreachable, %d fragmentation needed / packet too big",
			tunnelString(t.Src, t.Dst, t.VNI), t.icmpUnreach, t.icmpFragNeeded),
			evidence: []finding.Evidence{{Object: "tunnel " + tunnelString(t.Src, t.Dst, t.VNI), Field: "inner ICMP errors",
				Value: fmt.Sprintf("%d unreachable, %d fragmentation needed", t.icmpUnreach, t.icmpFragNeeded)}}})
	}
}

func (a *Analyzer) notes(r *Report) {
	r.Notes = append(r.Notes, a.limitNotes...)
	if u := r.UntrackedFlows; u != nil {
		r.Notes = append(r.Notes, fmt.Sprintf("Inner flows past the limit of %d (%s raises it): about %d more flows, %d packets, %d bytes, counted together, not one by one "+
			"(copies of a packet among them not removed). CAP-02 (unanswered SYNs) and CAP-09 (resets) judge the tracked flows only: the untracked ones carried %d SYNs and %d resets; "+
			"CAP-01 takes an untracked encapsulated flow as the twin of a plain one.",
			a.lim.MaxFlows, FlagMaxFlows, u.Flows, u.Packets, u.Bytes, u.SYNs, u.Resets))
	}
	if u := r.UntrackedTunnels; u != nil {
		r.Notes = append(r.Notes, fmt.Sprintf("Tunnels past the limit of %d (%s raises it): about %d more tunnels, %d VXLAN packets, %d bytes, counted together. "+
			"CAP-03 to CAP-07 and CAP-09's ICMP errors judge the tracked tunnels only; their flows are tracked as any.",
			a.lim.MaxTunnels, FlagMaxTunnels, u.Tunnels, u.Packets, u.Bytes))
	}
	if r.Truncated > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("%d packets were captured shorter than they were on the wire; checksums of those were not checked. "+
			"Capture whole packets: pktmon start -c --pkt-size 0 (the default keeps 128 bytes), tcpdump -s 0.", r.Truncated))
	}
	if r.Duplicates > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("%d copies of packets already seen (pktmon logs a packet at every component it crosses) were counted once.", r.Duplicates))
	}
	var offload int64
	for _, t := range a.tunnelOrder {
		offload += t.offload
	}
	if offload > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("%d super-packets or partial checksums from segmentation/checksum offload (captured on the sending side) were not counted as too large or corrupt.", offload))
	}
	if r.Nested > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("%d VXLAN packets carry VXLAN inside: each layer is counted on its own tunnel, the inner flow on the innermost.", r.Nested))
	}
	if r.Geneve > 0 || r.GPE > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("Other tunnels: %d Geneve packets (the VXLAN inside them is decoded; Geneve's own VNIs are not tracked as tunnels), %d VXLAN-GPE packets (recognised, not decoded).", r.Geneve, r.GPE))
	}
	if r.OddFlags > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("%d VXLAN packets set flag or reserved bits besides I (group policy, GPE-style bits): decoded as VXLAN, the bits ignored as RFC 7348 says.", r.OddFlags))
	}
	if r.OuterFragments > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("%d packets were later fragments of outer IP packets: not counted as VXLAN (the first fragment is), their bytes not decoded.", r.OuterFragments))
	}
	if r.Unverified > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("%d VXLAN packets were cut by the snap length before the end of their inner packet: decoded as far as the bytes go, their inner checksums not verified.", r.Unverified))
	}
	if r.GRE > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("%d GRE packets not decoded (ERSPAN mirrors, GRE tunnels): diag decodes VXLAN and Geneve as the nodes send them; "+
			"for the overlay's own packets capture on the node's underlay adapter.", r.GRE))
	}
	if a.tooBigOther > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("%d more ICMP \"fragmentation needed\"/\"packet too big\" %s about tunnel packets, past %d (VTEP pair, MTU) groups, %s counted, not reported one by one (CAP-10).",
			a.tooBigOther, nounFor(a.tooBigOther, "error", "errors"), maxTooBig, nounFor(a.tooBigOther, "was", "were")))
	}
	if r.OtherLinkTypes > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("%d packets had a link type diag does not decode.", r.OtherLinkTypes))
	}
	if r.VXLANPackets == 0 {
		r.Notes = append(r.Notes, "No VXLAN packets: capture on the node's underlay adapter, filter on UDP 4789 (pktmon filter add -p 4789), or give the port with --vxlan-port.")
	}
}
