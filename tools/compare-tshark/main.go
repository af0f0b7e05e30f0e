package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// Bounds on what is read from the subprocesses.
const (
	maxTsharkOutput = 512 << 20 // bytes of tshark's field lines
	maxDiagOutput   = 64 << 20  // bytes of diag's JSON report
	maxStderr       = 4 << 10
)

// tshark's fields, in this order; with -E occurrence=a a field holds the
// values of every layer of its protocol, comma-separated, and
// frame.protocols says which layer is which.
var fields = []string{
	"frame.number", "frame.protocols",
	"ip.src", "ip.dst", "ip.len", "ip.proto", "ip.checksum.status", "ip.frag_offset",
	"ipv6.src", "ipv6.dst", "ipv6.plen",
	"udp.srcport", "udp.dstport", "udp.length", "udp.checksum", "udp.checksum.status",
	"tcp.srcport", "tcp.dstport", "tcp.len", "tcp.hdr_len", "tcp.checksum", "tcp.checksum.status",
	"icmp.checksum.status", "icmpv6.checksum.status",
	"vxlan.flags", "vxlan.vni",
	"ip.cur_rt", // only in IPv4 layers with a source route
	"geneve.version",
	"_ws.short",
	"_ws.malformed", // last: its text holds commas
}

// figures is what one decoder saw of one file.
type figures struct {
	vxlan  int64
	geneve int64
	vnis   map[string]bool
	pairs  map[string]bool
	flows  map[string]bool // tshark: the flow keys; diag: nil, see nflows
	nflow  int64
	bad    int64
	note   string
	last   int64 // diag: the last packet read before a damaged block
}

func newFigures() *figures {
	return &figures{vnis: map[string]bool{}, pairs: map[string]bool{}, flows: map[string]bool{}}
}

// tsharkResult is tshark's figures as tshark decodes, and as diag decodes
// by design where they differ deliberately (docs/capture-vs-tshark.md).
type tsharkResult struct {
	raw, adj *figures
	why      map[string]bool // the deliberate differences met
	// VXLAN packets tshark leaves undecoded: BIG TCP super-packets, and
	// datagrams it decodes by their lower port (udp-port-order).
	bigTCP int64
	// Frames whose innermost datagram goes to a tunnel port and tshark
	// decoded by its lower port instead: diag decodes the tunnel inside,
	// and may list VNIs and VTEP pairs tshark does not show.
	deeper int64
	// Tunnel packets tshark reassembled from outer fragments: diag reads
	// the first fragment, and may have no flow, or another, for each, and
	// no checksum verdict (fragBad: those tshark calls bad).
	reassembled, fragBad int64
	// diag stops reading at a damaged block: the frames after its last
	// packet (0: all) are not diag's.
	diagLast int64
}

func main() {
	diagBin := flag.String("diag", "bin/diag", "the diag binary")
	tsharkBin := flag.String("tshark", "tshark", "the tshark binary")
	portList := flag.String("vxlan-port", "", "VXLAN UDP ports besides 4789, comma-separated, given to both decoders (e.g. 8472)")
	timeout := flag.Duration("timeout", 5*time.Minute, "the time each decoder may take per file")
	flag.Parse()
	if _, err := exec.LookPath(*tsharkBin); err != nil {
		fmt.Println("compare-tshark: skipped: tshark is not installed")
		return
	}
	ports := map[string]bool{"4789": true}
	for _, p := range strings.Split(*portList, ",") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		if n, err := strconv.ParseUint(p, 10, 16); err != nil || n == 0 {
			fatalf("-vxlan-port: %q is not a UDP port", p)
		}
		ports[p] = true
	}
	files, err := captureFiles(flag.Args())
	if err != nil {
		fatalf("%v", err)
	}
	if len(files) == 0 {
		fatalf("no capture files given (FILE or DIR arguments)")
	}

	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "FILE\tFIGURE\tTSHARK\tDIAG\tAGREE")
	failed := 0
	var notes []string
	for _, f := range files {
		ctx, cancel := context.WithTimeout(context.Background(), *timeout)
		d, derr := runDiag(ctx, *diagBin, f, ports)
		var t *tsharkResult
		var terr error
		if derr == nil {
			t, terr = runTshark(ctx, *tsharkBin, f, ports, d.last)
		}
		cancel()
		name := displayName(f)
		if terr != nil || derr != nil {
			failed++
			fmt.Fprintf(w, "%s\t(error)\t%s\t%s\tNO\n", name, errText(terr), errText(derr))
			continue
		}
		for _, r := range compare(t, d) {
			if r.agree == "NO" {
				failed++
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", name, r.figure, r.tshark, r.diag, r.agree)
		}
		for _, n := range []string{t.raw.note, d.note} {
			if n != "" {
				notes = append(notes, name+": "+n)
			}
		}
	}
	w.Flush()
	for _, n := range notes {
		fmt.Println("note: " + n)
	}
	if failed > 0 {
		fmt.Printf("compare-tshark: %d figures disagree with no documented reason (docs/capture-vs-tshark.md)\n", failed)
		os.Exit(1)
	}
	fmt.Printf("compare-tshark: %d files, every figure agrees or differs as documented (docs/capture-vs-tshark.md)\n", len(files))
}

func fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "compare-tshark: "+format+"\n", args...)
	os.Exit(2)
}

func errText(err error) string {
	if err == nil {
		return "ok"
	}
	return "error: " + err.Error()
}

// displayName shortens a path to its last two elements.
func displayName(path string) string {
	return filepath.Join(filepath.Base(filepath.Dir(path)), filepath.Base(path))
}

func isCapture(name string) bool {
	for _, s := range []string{".pcap", ".pcapng", ".pcap.gz", ".pcapng.gz"} {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// captureFiles expands the arguments: files as given, directories searched
// (recursively) for capture files, in lexical order.
func captureFiles(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, a)
			continue
		}
		err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && isCapture(d.Name()) {
				out = append(out, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// limitedStderr keeps the first maxStderr bytes a subprocess writes.
type limitedStderr struct{ bytes.Buffer }

func (l *limitedStderr) Write(p []byte) (int, error) {
	if room := maxStderr - l.Len(); room > 0 {
		l.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (l *limitedStderr) firstLine() string {
	for _, line := range strings.Split(l.String(), "\n") {
		// tshark warns about running as root on every run.
		if line = strings.TrimSpace(line); line != "" && !strings.Contains(line, "This could be dangerous") {
			return line
		}
	}
	return ""
}

// runTshark decodes a file with tshark, streaming its field lines.
func runTshark(ctx context.Context, bin, file string, ports map[string]bool, diagLast int64) (*tsharkResult, error) {
	args := []string{"-r", file}
	for p := range ports {
		args = append(args, "-d", "udp.port=="+p+",vxlan")
	}
	// IP reassembly stays on (tshark's default): a VXLAN packet in
	// fragments is counted once, on the frame that completes it, and its
	// inner checksums are verified over the whole packet.
	args = append(args, "-o", "ip.check_checksum:TRUE", "-o", "tcp.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE",
		"-T", "fields", "-E", "separator=/t", "-E", "occurrence=a")
	for _, f := range fields {
		args = append(args, "-e", f)
	}
	cmd, out, stderr, err := startPiped(ctx, bin, args...)
	if err != nil {
		return nil, err
	}
	res := &tsharkResult{raw: newFigures(), adj: newFigures(), why: map[string]bool{}, diagLast: diagLast}
	lr := &io.LimitedReader{R: out, N: maxTsharkOutput + 1}
	sc := bufio.NewScanner(lr)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		res.add(strings.Split(sc.Text(), "\t"), ports)
	}
	scanErr := sc.Err()
	over := lr.N <= 0
	if over {
		cmd.Process.Kill()
	}
	io.Copy(io.Discard, io.LimitReader(out, 1<<20))
	waitErr := cmd.Wait()
	switch {
	case over:
		return nil, fmt.Errorf("tshark wrote more than %d MiB", maxTsharkOutput>>20)
	case scanErr != nil:
		return nil, fmt.Errorf("reading tshark: %v", scanErr)
	case ctx.Err() != nil:
		return nil, fmt.Errorf("tshark: %v", ctx.Err())
	case waitErr != nil:
		// A file cut short or damaged: tshark reports the packets before
		// the damage and fails; keep them, and say so.
		var ee *exec.ExitError
		if !errors.As(waitErr, &ee) {
			return nil, waitErr
		}
		res.raw.note = "tshark: " + stderr.firstLine()
	}
	return res, nil
}

// frameFields gives the value of a field in the n-th layer of its protocol.
type frameFields map[string][]string

func (ff frameFields) get(field string, n int) string {
	if v := ff[field]; n < len(v) {
		return v[n]
	}
	return ""
}

type layer struct {
	name string
	n    int // among the layers of its protocol
}

// add counts one packet (one line of tshark's fields).
func (res *tsharkResult) add(vals []string, ports map[string]bool) {
	ff := frameFields{}
	for i, f := range fields {
		if i < len(vals) && vals[i] != "" {
			ff[f] = strings.Split(vals[i], ",")
		}
	}
	var ls []layer
	seen := map[string]int{}
	for _, name := range strings.Split(ff.get("frame.protocols", 0), ":") {
		ls = append(ls, layer{name, seen[name]})
		seen[name]++
	}
	frameNo, _ := strconv.ParseInt(ff.get("frame.number", 0), 10, 64)
	pastDamage := res.diagLast > 0 && frameNo > res.diagLast
	if pastDamage {
		res.why["damaged-block"] = true
	}
	res.count(res.raw, ff, ls)
	if pastDamage {
		return
	}
	dl, why := diagLayers(ff, ls)
	for _, w := range why {
		res.why[w] = true
	}
	if dl == nil {
		return
	}
	if !has(dl, "vxlan") && res.isBigTCP(ff, dl, ports) {
		// tshark stops at the UDP length 0 of a BIG TCP super-packet;
		// diag (and tcpdump) decode the VXLAN inside.
		res.bigTCP++
		res.adj.vxlan++
		res.why["big-tcp"] = true
		return
	}
	if k, want := otherTunnel(ff, dl, ports); k >= 0 {
		// A datagram tshark decoded as one tunnel by its lower port,
		// diag as another by its destination port.
		res.why["udp-port-order"] = true
		dl = dl[:k]
		switch {
		case want == "geneve" && !has(dl, "geneve"):
			res.adj.geneve++
		case want == "vxlan" && !has(dl, "vxlan"):
			res.bigTCP++
			res.adj.vxlan++
		}
		res.deeper++ // diag may decode a tunnel inside
	}
	if !isTunnel(dl) {
		// The outermost datagram goes to a tunnel port and tshark decoded
		// it by its lower port (see stoppedAtPort).
		switch stoppedAt(ff, dl, transport(dl, carrier(dl)), ports) {
		case "vxlan":
			res.bigTCP++
			res.adj.vxlan++
			res.why["udp-port-order"] = true
		case "geneve":
			res.adj.geneve++
			res.why["udp-port-order"] = true
		}
	}
	// RFC 7348: without the I flag the VNI is not valid; diag counts such
	// a packet as malformed (CAP-08), not as VXLAN. A VXLAN header cut
	// short is no VXLAN packet for diag either, whether or not tshark read
	// the VNI (bytes 4-6) before marking the layer malformed.
	if first := slices.IndexFunc(dl, func(l layer) bool { return l.name == "vxlan" }); first >= 0 && dl[first].n == 0 {
		if fl, err := strconv.ParseUint(strings.TrimPrefix(ff.get("vxlan.flags", 0), "0x"), 16, 16); err == nil && fl&0x0800 == 0 {
			res.why["no-I-flag"] = true
			dl = dl[:first]
		} else if ff.get("vxlan.vni", 0) == "" || shortVXLANHeader(ff, dl, first) {
			res.why["short-header"] = true
			dl = dl[:first]
		}
	}
	if stoppedAtPort(ff, dl, ports) {
		res.deeper++
		res.why["udp-port-order"] = true
	}
	if outerReassembled(ff, dl) {
		// tshark counts the packet on the frame that completes it and
		// verifies its inner checksums over the whole; diag counts it on
		// the first fragment, which may cut its inner headers: no verdict.
		res.why["outer-fragments"] = true
		res.reassembled++
		if bad, _ := res.inner(ff, dl); bad {
			res.fragBad++
		}
		res.countFragment(res.adj, ff, dl)
		return
	}
	bad, partial := res.count(res.adj, ff, dl)
	if bad && partial {
		res.why["partial-checksum"] = true
	}
	if ff.get("ip.cur_rt", 0) != "" && has(dl, "vxlan") {
		res.why["ipv4-source-route"] = true
	}
}

func has(ls []layer, name string) bool {
	return slices.ContainsFunc(ls, func(l layer) bool { return l.name == name })
}

// shortVXLANHeader: the VXLAN layer at i is the frame's last and tshark
// marked it malformed, or the UDP datagram carrying it is shorter than
// its own header and VXLAN's 8 bytes.
func shortVXLANHeader(ff frameFields, ls []layer, i int) bool {
	if i == len(ls)-1 && strings.Contains(ff.get("_ws.malformed", 0), "VXLAN") {
		return true
	}
	if i == 0 || ls[i-1].name != "udp" {
		return false
	}
	n, err := strconv.Atoi(ff.get("udp.length", ls[i-1].n))
	return err == nil && n >= 8 && n < 16
}

// diagLayers is the part of tshark's layers diag decodes as the frame's
// own (a prefix of them), and the documented differences that cut it; nil
// when diag decodes none of the frame's tunnels.
func diagLayers(ff frameFields, ls []layer) ([]layer, []string) {
	var why []string
	for i := 1; i < len(ls); i++ {
		// An ICMP error quotes the start of the packet it is about; diag
		// counts the error, not the quoted packet, as a tunnel packet.
		if (ls[i-1].name == "icmp" || ls[i-1].name == "icmpv6") && (ls[i].name == "ip" || ls[i].name == "ipv6") {
			if isTunnel(ls[i:]) {
				why = append(why, "icmp-quote")
			}
			ls = ls[:i]
			break
		}
	}
	// GRE (ERSPAN mirrors) is not decoded: a note. GRE inside a tunnel
	// is the inner packet's protocol.
	if g := slices.IndexFunc(ls, func(l layer) bool { return l.name == "gre" }); g >= 0 {
		if isTunnel(ls[g:]) {
			why = append(why, "gre")
		}
		if !isTunnel(ls[:g]) {
			return nil, why
		}
		ls = ls[:g+1]
	}
	// Encapsulations diag does not follow: MPLS, IP directly in IP
	// (protocols 4 and 41), Teredo, GTP. A tunnel inside one is not seen,
	// and the packet after an MPLS label stack in a tunnel is no inner
	// packet (no flow, no checksum verdict).
	for i := 1; i < len(ls); i++ {
		if !otherEncap(ls, i) {
			continue
		}
		if isTunnel(ls[i:]) || ls[i].name == "mpls" && isTunnel(ls[:i]) && i+1 < len(ls) {
			why = append(why, "other-encapsulation")
		}
		ls = ls[:i]
		break
	}
	// RFC 8926: a Geneve header of a version other than 0 is dropped by
	// receivers; tshark decodes it with a warning, diag does not.
	for i, l := range ls {
		if l.name == "geneve" && ff.get("geneve.version", l.n) != "0" {
			why = append(why, "geneve-version")
			ls = ls[:i]
			break
		}
	}
	// A Geneve header cut short, by the sender or by the snap length:
	// tshark shows a malformed or truncated layer, diag no Geneve packet.
	if n := len(ls); n > 0 && ls[n-1].name == "geneve" && (ff.get("_ws.malformed", 0) != "" || ff.get("_ws.short", 0) != "") {
		why = append(why, "short-header")
		ls = ls[:n-1]
	}
	return ls, why
}

func isTunnel(ls []layer) bool { return has(ls, "vxlan") || has(ls, "geneve") }

func isIP(l layer) bool { return l.name == "ip" || l.name == "ipv6" }

// otherEncap: layer i is an encapsulation diag does not decode.
func otherEncap(ls []layer, i int) bool {
	switch ls[i].name {
	case "mpls", "teredo", "gtp":
		return true
	}
	return isIP(ls[i]) && (isIP(ls[i-1]) || strings.HasPrefix(ls[i-1].name, "ipv6."))
}

// diagTunnel is the tunnel diag finds in a UDP datagram by its ports: the
// destination port first, then the source port (capture's tunnelOf):
// "vxlan", "geneve", "gpe" or "".
func diagTunnel(sport, dport string, ports map[string]bool) string {
	for _, p := range []string{dport, sport} {
		switch {
		case ports[p]:
			return "vxlan"
		case p == "6081":
			return "geneve"
		case p == "4790":
			return "gpe"
		}
	}
	return ""
}

// otherTunnel finds the first tunnel layer tshark decoded from a UDP
// datagram (by its lower port) where diag decodes another tunnel, by the
// destination port: its position and diag's tunnel; -1 when none.
func otherTunnel(ff frameFields, ls []layer, ports map[string]bool) (int, string) {
	for k := 1; k < len(ls); k++ {
		if !isTunnel(ls[k:k+1]) || ls[k-1].name != "udp" {
			continue
		}
		n := ls[k-1].n
		if want := diagTunnel(ff.get("udp.srcport", n), ff.get("udp.dstport", n), ports); want != "" && want != ls[k].name {
			return k, want
		}
	}
	return -1, ""
}

// outerReassembled: the IP packet carrying the frame's first tunnel layer
// was reassembled from fragments by tshark (an IPv6 fragment header, or
// an IPv4 fragment offset that is not 0: the frame is a later fragment).
func outerReassembled(ff frameFields, ls []layer) bool {
	first := slices.IndexFunc(ls, func(l layer) bool { return l.name == "vxlan" || l.name == "geneve" })
	if first < 0 {
		return false
	}
	c := carrier(ls[:first])
	for i := c + 1; c >= 0 && i < first; i++ {
		if ls[i].name == "ipv6.fraghdr" {
			return true
		}
	}
	if c >= 0 && ls[c].name == "ip" {
		off := ff.get("ip.frag_offset", ls[c].n)
		return off != "" && off != "0"
	}
	return false
}

// stoppedAtPort: after the frame's last tunnel layer comes a UDP datagram
// to or from a tunnel port whose payload tshark decoded as something
// else, by the lower of its ports (its UDP dissector's rule). diag looks
// for a tunnel on the destination port, then the source port, and
// decodes the tunnel inside.
func stoppedAtPort(ff frameFields, ls []layer, ports map[string]bool) bool {
	ip := innerIP(ls)
	return ip >= 0 && stoppedAt(ff, ls, transport(ls, ip), ports) != ""
}

// stoppedAt says which tunnel diag finds in the UDP datagram at layer t
// when tshark decoded its payload as something else: "vxlan", "geneve"
// or "".
func stoppedAt(ff frameFields, ls []layer, t int, ports map[string]bool) string {
	if t < 0 || ls[t].name != "udp" || t+1 >= len(ls) || isTunnel(ls[t+1:t+2]) {
		return ""
	}
	for _, f := range []string{"udp.dstport", "udp.srcport"} {
		switch p := ff.get(f, ls[t].n); {
		case ports[p]:
			return "vxlan"
		case p == "6081":
			return "geneve"
		}
	}
	return ""
}

// count adds one frame, decoded as far as ls, to fg: a Geneve packet when
// it has a Geneve layer, and, when it has VXLAN layers, a VXLAN packet
// with their VNIs and VTEP pairs, its inner flow and whether an inner
// checksum is bad (partial: bad only by a partial checksum).
func (res *tsharkResult) count(fg *figures, ff frameFields, ls []layer) (bad, partial bool) {
	vx := countTunnels(fg, ff, ls)
	if len(vx) == 0 {
		return false, false
	}
	bad, partial = res.inner(ff, ls)
	if key := flowKey(ff, ls, len(vx), fg == res.adj); key != "" {
		fg.flows[key] = true
	}
	if bad && !(fg == res.adj && partial) {
		fg.bad++
	}
	return bad, partial
}

// countFragment adds a frame whose outer packet tshark reassembled, as
// diag sees its first fragment: the tunnel layers' packets, VNIs and VTEP
// pairs; its flow and checksum verdict are left to compare's bounds.
func (res *tsharkResult) countFragment(fg *figures, ff frameFields, ls []layer) {
	countTunnels(fg, ff, ls)
}

// countTunnels adds a frame's tunnel layers to fg: a Geneve packet when it
// has a Geneve layer and, when it has VXLAN layers, a VXLAN packet with
// their VNIs and VTEP pairs. It returns the positions of the VXLAN layers.
func countTunnels(fg *figures, ff frameFields, ls []layer) []int {
	if has(ls, "geneve") {
		fg.geneve++
	}
	var vx []int
	for i, l := range ls {
		if l.name == "vxlan" {
			vx = append(vx, i)
		}
	}
	if len(vx) == 0 {
		return nil
	}
	fg.vxlan++
	for k, p := range vx {
		if v := ff.get("vxlan.vni", k); v != "" {
			fg.vnis[v] = true
		}
		if c := carrier(ls[:p]); c >= 0 {
			fg.pairs[pairOf(ff, ls[c])] = true
		}
	}
	return vx
}

// isBigTCP: an outer IP length of 0 (IPv6), or one tshark presumes from
// the frame because the header says 0 (IPv4, above 65535), carrying UDP
// with length 0 to a VXLAN port (or undecodable) and no VXLAN decoded.
func (res *tsharkResult) isBigTCP(ff frameFields, ls []layer, ports map[string]bool) bool {
	if len(ls) < 4 || ls[3].name != "udp" {
		return false
	}
	switch ls[2].name {
	case "ip":
		if n, _ := strconv.Atoi(ff.get("ip.len", 0)); n <= 65535 {
			return false
		}
	case "ipv6":
		if ff.get("ipv6.plen", 0) != "0" {
			return false
		}
	default:
		return false
	}
	sp, dp := ff.get("udp.srcport", 0), ff.get("udp.dstport", 0)
	return dp == "" && sp == "" || (ports[dp] || ports[sp]) && ff.get("udp.length", 0) == "0"
}

// carrier is the position of the last IP layer in ls, or -1.
func carrier(ls []layer) int {
	for i := len(ls) - 1; i >= 0; i-- {
		if ls[i].name == "ip" || ls[i].name == "ipv6" {
			return i
		}
	}
	return -1
}

func addr(s string) string {
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap().String()
	}
	return s
}

func pairOf(ff frameFields, l layer) string {
	return addr(ff.get(l.name+".src", l.n)) + " > " + addr(ff.get(l.name+".dst", l.n))
}

// lastTunnel is the position of the last VXLAN or Geneve layer, or -1.
func lastTunnel(ls []layer) int {
	for i := len(ls) - 1; i >= 0; i-- {
		if ls[i].name == "vxlan" || ls[i].name == "geneve" {
			return i
		}
	}
	return -1
}

// innerIP is the position of the innermost packet's IP layer: the first
// IP layer after the last tunnel layer (not one quoted in an ICMP error).
func innerIP(ls []layer) int {
	for i := lastTunnel(ls) + 1; i > 0 && i < len(ls); i++ {
		if ls[i].name == "ip" || ls[i].name == "ipv6" {
			return i
		}
	}
	return -1
}

// transport is the position of the layer after the IP layer at i, past
// IPv6 extension headers.
func transport(ls []layer, i int) int {
	for i++; i < len(ls) && strings.HasPrefix(ls[i].name, "ipv6."); i++ {
	}
	if i < len(ls) {
		return i
	}
	return -1
}

var protoNumbers = map[string]string{"tcp": "6", "udp": "17", "icmp": "1", "icmpv6": "58"}

// flowKey is the inner flow as diag keys it: the innermost IP addresses
// and ports in either direction, the protocol and the innermost VNI (of
// the nvx VXLAN layers, the last).
// tshark's ip.dst of a source-routed IPv4 packet is its final destination
// and ip.cur_rt the header's; diag keys flows by the header's addresses:
// as diag, the header's (the last ip.cur_rt: outer headers carry none).
func flowKey(ff frameFields, ls []layer, nvx int, asDiag bool) string {
	ip := innerIP(ls)
	if ip < 0 {
		return ""
	}
	l := ls[ip]
	if ff.get(l.name+".src", l.n) == "" || ff.get(l.name+".dst", l.n) == "" {
		return "" // tshark did not decode the header (a bogus length)
	}
	proto, sport, dport := "", "0", "0"
	if t := transport(ls, ip); t >= 0 {
		tl := ls[t]
		proto = protoNumbers[tl.name]
		if tl.name == "tcp" || tl.name == "udp" {
			sport, dport = ff.get(tl.name+".srcport", tl.n), ff.get(tl.name+".dstport", tl.n)
		}
	}
	if proto == "" {
		if l.name == "ip" {
			proto = ff.get("ip.proto", l.n)
		} else {
			proto = "ipv6-other"
		}
	}
	a := addr(ff.get(l.name+".src", l.n)) + "#" + sport
	dst := ff.get(l.name+".dst", l.n)
	if cur := ff["ip.cur_rt"]; asDiag && l.name == "ip" && len(cur) > 0 {
		dst = cur[len(cur)-1]
	}
	b := addr(dst) + "#" + dport
	if b < a {
		a, b = b, a
	}
	return strings.Join([]string{ff.get("vxlan.vni", nvx-1), proto, a, b}, "|")
}

// inner says whether an inner checksum is bad, as diag judges them: an
// IPv4 header after the first tunnel layer, or the innermost transport
// checksum (a UDP checksum of 0 over IPv6 is illegal, RFC 8200 §8.1).
// partial says the packet is bad only by a transport checksum that is the
// pseudo-header sum a sender leaves for its NIC to complete (offload).
func (res *tsharkResult) inner(ff frameFields, ls []layer) (bad, partial bool) {
	ip := innerIP(ls)
	first := slices.IndexFunc(ls, func(l layer) bool { return l.name == "vxlan" || l.name == "geneve" })
	for i := first; i >= 0 && i <= ip; i++ {
		if ls[i].name == "ip" && ff.get("ip.checksum.status", ls[i].n) == "0" {
			bad = true
		}
	}
	if ip < 0 {
		return bad, false
	}
	t := transport(ls, ip)
	if t < 0 {
		return bad, false
	}
	tl := ls[t]
	if s := ff.get(tl.name+".checksum.status", tl.n); s == "0" || s == "4" {
		return true, !bad && isPartial(ff, ls[ip], tl)
	}
	return bad, false
}

// isPartial: the stored checksum is the folded pseudo-header sum, with or
// without the transport length.
func isPartial(ff frameFields, ipl, tl layer) bool {
	var length uint32
	switch tl.name {
	case "tcp":
		n, err1 := strconv.Atoi(ff.get("tcp.len", tl.n))
		h, err2 := strconv.Atoi(ff.get("tcp.hdr_len", tl.n))
		if err1 != nil || err2 != nil {
			return false
		}
		length = uint32(n + h)
	case "udp":
		n, err := strconv.Atoi(ff.get("udp.length", tl.n))
		if err != nil {
			return false
		}
		length = uint32(n)
	default:
		return false
	}
	stored, err := strconv.ParseUint(strings.TrimPrefix(ff.get(tl.name+".checksum", tl.n), "0x"), 16, 16)
	src, err1 := netip.ParseAddr(ff.get(ipl.name+".src", ipl.n))
	dst, err2 := netip.ParseAddr(ff.get(ipl.name+".dst", ipl.n))
	if err != nil || err1 != nil || err2 != nil {
		return false
	}
	sum := uint32(6)
	if tl.name == "udp" {
		sum = 17
	}
	for _, a := range []netip.Addr{src, dst} {
		b := a.AsSlice()
		for i := 0; i+1 < len(b); i += 2 {
			sum += uint32(b[i])<<8 | uint32(b[i+1])
		}
	}
	return uint16(stored) == fold(sum) || uint16(stored) == fold(sum+length)
}

func fold(sum uint32) uint16 {
	for sum > 0xffff {
		sum = sum>>16 + sum&0xffff
	}
	return uint16(sum)
}

// diagReport is the part of diag's JSON report compared.
type diagReport struct {
	Files []struct {
		Packets int64 `json:"packets"`
	} `json:"files"`
	VXLANPackets int64 `json:"vxlanPackets"`
	Geneve       int64 `json:"geneve"`
	Tunnels      []struct {
		Src string `json:"src"`
		Dst string `json:"dst"`
		VNI uint32 `json:"vni"`
	} `json:"tunnels"`
	Flows          []json.RawMessage `json:"flows"`
	UntrackedFlows *struct {
		Flows int64 `json:"flows"`
	} `json:"untrackedFlows"`
	Findings []struct {
		ID       string `json:"id"`
		Evidence []struct {
			Field string `json:"field"`
			Value string `json:"value"`
		} `json:"evidence"`
	} `json:"findings"`
	Notes []string `json:"notes"`
}

// runDiag decodes a file with diag capture decode -o json.
func runDiag(ctx context.Context, bin, file string, ports map[string]bool) (*figures, error) {
	args := []string{"capture", "decode", "-o", "json"}
	for p := range ports {
		if p != "4789" {
			args = append(args, "--vxlan-port", p)
		}
	}
	cmd, out, stderr, err := startPiped(ctx, bin, append(args, file)...)
	if err != nil {
		return nil, err
	}
	data, readErr := io.ReadAll(io.LimitReader(out, maxDiagOutput+1))
	if len(data) > maxDiagOutput {
		cmd.Process.Kill()
	}
	io.Copy(io.Discard, io.LimitReader(out, 1<<20))
	waitErr := cmd.Wait()
	var ee *exec.ExitError
	switch {
	case len(data) > maxDiagOutput:
		return nil, fmt.Errorf("diag wrote more than %d MiB", maxDiagOutput>>20)
	case readErr != nil:
		return nil, readErr
	case errors.As(waitErr, &ee) && ee.ExitCode() == 3:
		// findings: the report is complete
	case waitErr != nil:
		return nil, fmt.Errorf("diag: %v: %s", waitErr, stderr.firstLine())
	}
	var r diagReport
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("diag's JSON: %v", err)
	}
	fg := newFigures()
	fg.vxlan, fg.geneve = r.VXLANPackets, r.Geneve
	for _, t := range r.Tunnels {
		fg.vnis[strconv.FormatUint(uint64(t.VNI), 10)] = true
		fg.pairs[addr(t.Src)+" > "+addr(t.Dst)] = true
	}
	fg.nflow = int64(len(r.Flows))
	if r.UntrackedFlows != nil {
		fg.nflow += r.UntrackedFlows.Flows
		fg.note = "diag: flows past its limit are an estimate"
	}
	for _, f := range r.Findings {
		for _, e := range f.Evidence {
			if f.ID == "CAP-06" && e.Field == "inner checksum errors" {
				n, _ := strconv.ParseInt(e.Value, 10, 64)
				fg.bad += n
			}
		}
	}
	for _, n := range r.Notes {
		if strings.Contains(n, "damaged or corrupt") && len(r.Files) == 1 {
			fg.note = "diag: " + n
			fg.last = r.Files[0].Packets
			break
		}
	}
	return fg, nil
}

type row struct{ figure, tshark, diag, agree string }

// compare makes the rows of one file: "yes" when tshark and diag agree,
// "deliberate (...)" when they differ only as documented, else "NO".
func compare(t *tsharkResult, d *figures) []row {
	why := make([]string, 0, len(t.why))
	for w := range t.why {
		why = append(why, w)
	}
	slices.Sort(why)
	verdict := func(raw, adj bool) string {
		switch {
		case raw:
			return "yes"
		case adj && len(why) > 0:
			return "deliberate (" + strings.Join(why, ", ") + ")"
		}
		return "NO"
	}
	num := func(n int64) string { return strconv.FormatInt(n, 10) }
	// A BIG TCP super-packet tshark does not decode may add one VNI, VTEP
	// pair and flow each that tshark cannot see.
	// A packet reassembled from outer fragments may add one flow diag
	// keys from its first fragment, and a bad checksum diag cannot see.
	within := func(adj, got int64) bool { return got >= adj && got <= adj+t.bigTCP+t.reassembled }
	setOK := func(adj, got map[string]bool) bool {
		for k := range adj {
			if !got[k] {
				return false
			}
		}
		return len(got) == len(adj) || t.bigTCP > 0 || t.deeper > 0
	}
	nflowRaw, nflowAdj := int64(len(t.raw.flows)), int64(len(t.adj.flows))
	return []row{
		{"vxlan packets", num(t.raw.vxlan), num(d.vxlan), verdict(t.raw.vxlan == d.vxlan, t.adj.vxlan == d.vxlan)},
		{"VNIs", setString(t.raw.vnis), setString(d.vnis), verdict(sameSet(t.raw.vnis, d.vnis), setOK(t.adj.vnis, d.vnis))},
		{"VTEP pairs", setString(t.raw.pairs), setString(d.pairs), verdict(sameSet(t.raw.pairs, d.pairs), setOK(t.adj.pairs, d.pairs))},
		{"inner flows", num(nflowRaw), num(d.nflow), verdict(nflowRaw == d.nflow, within(nflowAdj, d.nflow))},
		{"bad checksums", num(t.raw.bad), num(d.bad), verdict(t.raw.bad == d.bad, d.bad >= t.adj.bad && d.bad <= t.adj.bad+t.fragBad)},
		{"geneve packets", num(t.raw.geneve), num(d.geneve), verdict(t.raw.geneve == d.geneve, t.adj.geneve == d.geneve)},
	}
}

func sameSet(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

// setString lists a set, cut to a width a table can hold.
func setString(s map[string]bool) string {
	if len(s) == 0 {
		return "-"
	}
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := strings.Join(keys, ", ")
	if len(out) > 40 {
		out = out[:32] + fmt.Sprintf("... (%d)", len(keys))
	}
	return out
}

// startPiped starts bin with its standard output to read and the first of
// its standard error kept.
func startPiped(ctx context.Context, bin string, args ...string) (*exec.Cmd, io.ReadCloser, *limitedStderr, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	stderr := &limitedStderr{}
	cmd.Stderr = stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, nil, err
	}
	return cmd, out, stderr, nil
}
