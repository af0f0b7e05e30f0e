package anonymize

import (
	"bytes"
	"net/netip"
	"strconv"
	"strings"
)

// Text rewrites every IPv4 and IPv6 address (with or without a prefix
// length), MAC address and registered name in text, leaving everything
// else byte for byte. Addresses are found by their shape at a token
// boundary; a dotted version number (v1.2.3.4, 10.0.17763.1) is not an
// address.
func (a *Anonymizer) Text(in []byte) []byte {
	if a.pendingAccounts != nil {
		a.resolveAccounts()
	}
	in = a.statedFields(in)
	return a.replaceKeywords(a.words(in))
}

// words is Text's scanner: addresses, MACs and registered names.
func (a *Anonymizer) words(in []byte) []byte {
	out := make([]byte, 0, len(in)+len(in)/16)
	for i := 0; i < len(in); {
		if addrStart(in, i) {
			if n, rep := a.addrAt(in, i); n > 0 {
				out = append(out, rep...)
				i += n
				continue
			}
		}
		if n := escapeAt(in, i); n > 0 && (a.isAddrAt(in, i+n) || a.startsWithName(in, i+n)) {
			// The letters of an escape (\n10.1.2.3 in a JSON string) are not
			// the word's; in plain text (C:\Users\nancy) they are.
			out = append(out, in[i:i+n]...)
			i += n
			continue
		}
		if pctEscapeBefore(in, i) {
			if n, rep := a.pctIPv6At(in, i); n > 0 {
				out = append(out, rep...)
				i += n
				continue
			}
		}
		if n := pctEscapeAt(in, i); n > 0 && (a.isAddrAt(in, i+n) || a.startsWithName(in, i+n) || a.pctIPv6Len(in, i+n) > 0) {
			// A percent-encoded separator (http%3A%2F%2F10.1.2.3%3A80) is
			// no part of the word or address after it.
			out = append(out, in[i:i+n]...)
			i += n
			continue
		}
		if (i == 0 || !nameChar(in[i-1]) || jsonEscapeBefore(in, i) || pctEscapeBefore(in, i)) && nameChar(in[i]) {
			// A word ends early where an address starts inside it
			// (host-10.1.2.3, pod_fd00::5): the address is the loop's.
			j := i + 1
			for j < len(in) && nameChar(in[j]) && !(strings.IndexByte("-_", in[j-1]) >= 0 && addrStart(in, j) && a.isAddrInWord(in, j)) {
				j++
			}
			n, rep := a.namesAt(in[:j], i)
			out = append(out, rep...)
			i += n
			continue
		}
		out = append(out, in[i])
		i++
	}
	return out
}

// addrStart: an address may start at in[i]: what precedes it does not
// make it part of something else (a digit or dot: a longer number; a
// letter: a version such as v1.2.3.4; a hex digit or colon: a longer hex
// run), except the letter of a JSON escape (\n10.1.2.3) and a colon
// after a word (IPAddress:10.1.2.3, addr:fe80::1).
func addrStart(in []byte, i int) bool {
	if i == 0 {
		return true
	}
	c := in[i-1]
	if jsonEscapeBefore(in, i) || pctEscapeBefore(in, i) {
		return true // \u0027 ends in a digit, \n in a letter, %2F in a letter
	}
	switch {
	case c >= '0' && c <= '9', c == '.':
		return false
	case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		return false // v1.2.3.4; an escape's letter was let through above
	case c == ':':
		// A dotted quad after a colon is no part of a MAC, and an IPv6
		// address ending in one was read whole at its start.
		if _, n := dotted(in, i); n > 0 {
			return true
		}
		// After "word:", not inside a hex run such as a MAC or IPv6: the
		// run before the colon is a group of at most four hex digits that
		// a colon or nothing word-like precedes.
		k := i - 1
		for k > 0 && isHex(in[k-1]) {
			k--
		}
		if k == i-1 {
			return !(k > 0 && in[k-1] == ':') // "::" or "x::"
		}
		inRun := i-1-k <= 4 && (k == 0 || !isAlnum(in[k-1]) || in[k-1] == ':')
		return !inRun
	}
	return true
}

// jsonEscapeBefore: in[i-1] ends a JSON or Go escape (\n, \t, \r, \u003c).
func jsonEscapeBefore(in []byte, i int) bool {
	if i >= 2 && in[i-2] == '\\' && strings.IndexByte("ntrbf", in[i-1]) >= 0 {
		return true
	}
	return i >= 6 && in[i-6] == '\\' && in[i-5] == 'u' && isHex(in[i-4]) && isHex(in[i-3]) && isHex(in[i-2]) && isHex(in[i-1])
}

// pctEscapeAt: 3 where a URL's percent escape (%2F, %3A, %40) starts at
// in[i], else 0.
func pctEscapeAt(in []byte, i int) int {
	if i+5 <= len(in) && in[i] == '%' && in[i+1] == '2' && in[i+2] == '5' && isHex(in[i+3]) && isHex(in[i+4]) {
		return 5 // encoded twice: %252F
	}
	if i+3 <= len(in) && in[i] == '%' && isHex(in[i+1]) && isHex(in[i+2]) {
		return 3
	}
	return 0
}

// pctIPv6At maps an IPv6 address at in[i] whose colons are
// percent-encoded (%5Bfd00%3A%3A5%5D in a URL): the bytes it spans and
// its image, encoded alike, or 0.
func (a *Anonymizer) pctIPv6At(in []byte, i int) (int, []byte) {
	var dec []byte
	colon := ""
	j := i
	for j < len(in) && len(dec) < 45 {
		switch {
		case isHex(in[j]) || in[j] == '.':
			dec = append(dec, in[j])
			j++
			continue
		case j+3 <= len(in) && in[j] == '%' && in[j+1] == '3' && (in[j+2] == 'A' || in[j+2] == 'a'):
			if colon == "" {
				colon = string(in[j : j+3])
			}
			dec = append(dec, ':')
			j += 3
			continue
		}
		break
	}
	if colon == "" || bytes.Count(dec, []byte(":")) < 2 || j < len(in) && isAlnum(in[j]) {
		return 0, nil
	}
	addr, err := netip.ParseAddr(string(dec))
	if err != nil || !addr.Is6() {
		return 0, nil
	}
	return j - i, []byte(strings.ReplaceAll(a.addrs.Addr(addr).String(), ":", colon))
}

// pctIPv6Len: the length of a percent-encoded IPv6 address at in[i], or 0.
func (a *Anonymizer) pctIPv6Len(in []byte, i int) int {
	if i >= len(in) || !isHex(in[i]) {
		return 0
	}
	n, _ := a.pctIPv6At(in, i)
	return n
}

// pctEscapeBefore: in[i-3:i] is a percent escape that separates (%2F,
// %3A, %40, %3D, %26, %2C, %20): what follows starts a word or address.
func pctEscapeBefore(in []byte, i int) bool {
	if i < 3 || in[i-3] != '%' && !(i >= 5 && in[i-5] == '%' && in[i-4] == '2' && in[i-3] == '5') || !isHex(in[i-2]) || !isHex(in[i-1]) {
		return false // neither %2F nor, encoded twice, %252F
	}
	switch strings.ToUpper(string(in[i-2 : i])) {
	case "2F", "3A", "40", "3D", "26", "2C", "20", "3F", "5B", "5D", "22", "27", "5C":
		return true
	}
	return false
}

// escapeAt: the length of the escape letters at in[i] after a backslash
// (n, t, r, b, f: 1; u and four hex digits: 5), else 0.
func escapeAt(in []byte, i int) int {
	if i == 0 || in[i-1] != '\\' || i >= 2 && in[i-2] == '\\' {
		return 0
	}
	if strings.IndexByte("ntrbf", in[i]) >= 0 {
		return 1
	}
	if in[i] == 'u' && i+5 <= len(in) && isHex(in[i+1]) && isHex(in[i+2]) && isHex(in[i+3]) && isHex(in[i+4]) {
		return 5
	}
	return 0
}

// isAddrInWord: an IPv4 address or a MAC starts at in[j] inside a word
// (host-10.1.2.3, mac_00-15-5D-01-02-03); hex around :: inside a word
// (dead::beef) is not taken for IPv6 there.
func (a *Anonymizer) isAddrInWord(in []byte, j int) bool {
	if _, n := dotted(in, j); n > 0 {
		return true
	}
	n, _ := a.macAt(in, j)
	return n > 0
}

// startsWithName: the word at in[j] begins with a registered name.
func (a *Anonymizer) startsWithName(in []byte, j int) bool {
	k := j
	for k < len(in) && nameChar(in[k]) {
		k++
	}
	if k == j {
		return false
	}
	label, _, _ := strings.Cut(string(in[j:k]), ".")
	return a.label(label) != label || a.names.hasPrefix(label)
}

// isAddrAt: an address starts at in[j] (without rewriting it).
func (a *Anonymizer) isAddrAt(in []byte, j int) bool {
	if _, n := dotted(in, j); n > 0 {
		return true
	}
	if n, _ := a.macAt(in, j); n > 0 {
		return true
	}
	n, _ := a.ipv6At(in, j)
	return n > 0
}

func nameChar(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '.' || c == '-'
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

// addrAt matches an address at in[i:]: the bytes it spans and their
// replacement, or 0.
func (a *Anonymizer) addrAt(in []byte, i int) (int, []byte) {
	if n, rep := a.ipv6At(in, i); n > 0 {
		return n, rep
	}
	if n, rep := a.macAt(in, i); n > 0 {
		return n, rep
	}
	return a.ipv4At(in, i)
}

func (a *Anonymizer) ipv6At(in []byte, i int) (int, []byte) {
	j, colons := i, 0
	for j < len(in) && (isHex(in[j]) || in[j] == ':' || in[j] == '.') {
		if in[j] == ':' {
			colons++
		}
		j++
	}
	run := strings.TrimRight(string(in[i:j]), ".")
	j = i + len(run)
	if colons < 2 || j < len(in) && isAlnum(in[j]) && in[j] != '_' || run[0] == ':' && colons < 3 && !strings.Contains(run, ".") {
		return 0, nil
	}
	if colons == 2 && !strings.ContainsAny(run, "0123456789") {
		return 0, nil // Add::Face, cafe::beef: a C++ or PowerShell member, not an address
	}
	addr, err := netip.ParseAddr(run)
	if err != nil && strings.HasSuffix(run, ":") && !strings.HasSuffix(run, "::") {
		// "fd00::10: error": the colon ends the address.
		run = run[:len(run)-1]
		j--
		addr, err = netip.ParseAddr(run)
	}
	if err != nil || !addr.Is6() {
		return 0, nil
	}
	zone := ""
	if j < len(in) && in[j] == '%' {
		k := j + 1
		for k < len(in) && isAlnum(in[k]) {
			k++
		}
		zone, j = string(in[j:k]), k
	}
	mapped := a.addrs.Addr(addr)
	if bits, n := prefixLen(in, j, 128); n > 0 {
		p := a.addrs.Prefix(netip.PrefixFrom(addr, bits))
		return j + n - i, []byte(p.Addr().String() + zone + "/" + strconv.Itoa(bits))
	}
	return j - i, []byte(mapped.String() + zone)
}

// prefixLen reads "/n" at in[j:] (n at most max): n and the bytes it spans.
func prefixLen(in []byte, j, max int) (int, int) {
	if j >= len(in) || in[j] != '/' {
		return 0, 0
	}
	k, v := j+1, 0
	for k < len(in) && in[k] >= '0' && in[k] <= '9' && k-j <= 3 {
		v = v*10 + int(in[k]-'0')
		k++
	}
	if k == j+1 || v > max || k < len(in) && (isAlnum(in[k]) || in[k] == '.') {
		return 0, 0
	}
	return v, k - j
}

func (a *Anonymizer) macAt(in []byte, i int) (int, []byte) {
	if i+17 > len(in) {
		return 0, nil
	}
	sep := in[i+2]
	if sep != '-' && sep != ':' {
		return 0, nil
	}
	if i >= 2 && in[i-1] == sep && isHex(in[i-2]) {
		return 0, nil // the tail of a longer hex run (aa-02-03-04-05-06-07)
	}
	var b [6]byte
	upper := false
	for g := 0; g < 6; g++ {
		h, l := in[i+3*g], in[i+3*g+1]
		if !isHex(h) || !isHex(l) || g < 5 && in[i+3*g+2] != sep {
			return 0, nil
		}
		upper = upper || h >= 'A' && h <= 'F' || l >= 'A' && l <= 'F'
		v, _ := strconv.ParseUint(string([]byte{h, l}), 16, 8)
		b[g] = byte(v)
	}
	if e := i + 17; e < len(in) && (isAlnum(in[e]) || in[e] == sep && e+1 < len(in) && isHex(in[e+1])) {
		return 0, nil
	}
	m := a.macs.MAC(b)
	digits := "0123456789abcdef"
	if upper {
		digits = "0123456789ABCDEF"
	}
	out := make([]byte, 0, 17)
	for g, v := range m {
		if g > 0 {
			out = append(out, sep)
		}
		out = append(out, digits[v>>4], digits[v&15])
	}
	return 17, out
}

// dotted reads a dotted-quad IPv4 address at in[i:]: the address and the
// bytes it spans, or 0.
func dotted(in []byte, i int) (netip.Addr, int) {
	var b [4]byte
	j := i
	for part := 0; part < 4; part++ {
		if part > 0 {
			if j >= len(in) || in[j] != '.' {
				return netip.Addr{}, 0
			}
			j++
		}
		k, v := j, 0
		for k < len(in) && in[k] >= '0' && in[k] <= '9' && k-j < 4 {
			v = v*10 + int(in[k]-'0')
			k++
		}
		if k == j || k-j > 3 || v > 255 {
			return netip.Addr{}, 0
		}
		b[part], j = byte(v), k
	}
	// 1.2.3.4.5, 1.2.3.45678 and 1.2.3.4abc are something else;
	// 10.1.2.3_80 (an address in a name) is an address.
	if j < len(in) && (isAlnum(in[j]) && in[j] != '_' || in[j] == '.' && j+1 < len(in) && in[j+1] >= '0' && in[j+1] <= '9') {
		return netip.Addr{}, 0
	}
	return netip.AddrFrom4(b), j - i
}

func (a *Anonymizer) ipv4At(in []byte, i int) (int, []byte) {
	addr, n := dotted(in, i)
	if n == 0 {
		return 0, nil
	}
	j := i + n
	if bits, pn := prefixLen(in, j, 32); pn > 0 {
		p := a.addrs.Prefix(netip.PrefixFrom(addr, bits))
		return n + pn, []byte(p.Addr().String() + "/" + strconv.Itoa(bits))
	}
	// route print: "10.244.0.0    255.255.0.0": the address is a network.
	k := j
	for k < len(in) && (in[k] == ' ' || in[k] == '\t') {
		k++
	}
	if k > j {
		if mask, mn := dotted(in, k); mn > 0 {
			if bits, ok := maskBits(mask); ok {
				return n, []byte(a.addrs.Prefix(netip.PrefixFrom(addr, bits)).Addr().String())
			}
		}
	}
	return n, []byte(a.addrs.Addr(addr).String())
}

// maskBits: the prefix length of a contiguous netmask. 0.0.0.0 is a mask
// only after a 0.0.0.0 destination, which is kept anyway.
func maskBits(m netip.Addr) (int, bool) {
	b := m.As4()
	v := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
	if v>>24 != 255 {
		return 0, false
	}
	ones := 0
	for v&0x80000000 != 0 {
		ones++
		v <<= 1
	}
	return ones, v == 0
}

// namesAt rewrites the word at in[i:] (letters, digits, '-', '_', '.'),
// label by label (see label): win-1.contoso.local has its host and its
// domain replaced even when only each is registered.
func (a *Anonymizer) namesAt(in []byte, i int) (int, []byte) {
	j := i
	for j < len(in) && nameChar(in[j]) {
		j++
	}
	word := string(in[i:j])
	if !strings.ContainsAny(word, "-.") && len(a.names.names) == 0 {
		return j - i, in[i:j]
	}
	labels := strings.Split(word, ".")
	var out []string
	for k := 0; k < len(labels); {
		done := false
		for n := min(a.names.maxLabels, len(labels)-k); n > 1; n-- {
			if p, ok := a.names.lookup(strings.Join(labels[k:k+n], ".")); ok {
				out = append(out, p)
				k += n
				done = true
				break
			}
		}
		if !done {
			out = append(out, a.label(labels[k]))
			k++
		}
	}
	return j - i, []byte(strings.Join(out, "."))
}

// label rewrites one dot-free label: a registered name, whole or as a
// dash-separated part (Calico names blocks <node>-<CIDR>), and an address
// written with dashes (EKS host names ip-10-0-1-5, Calico's
// 10-244-1-0-26, a CIDR when a prefix length follows).
func (a *Anonymizer) label(l string) string {
	if p, ok := a.names.lookup(l); ok {
		return p
	}
	if !strings.ContainsAny(l, "-_") {
		return l
	}
	// Parts and the separators between them ('-' or '_').
	var parts []string
	var seps []byte
	start := 0
	for k := 0; k < len(l); k++ {
		if l[k] == '-' || l[k] == '_' {
			parts, seps = append(parts, l[start:k]), append(seps, l[k])
			start = k + 1
		}
	}
	parts = append(parts, l[start:])
	join := func(i, j int) string { // parts[i:j] with their separators
		var b strings.Builder
		for k := i; k < j; k++ {
			if k > i {
				b.WriteByte(seps[k-1])
			}
			b.WriteString(parts[k])
		}
		return b.String()
	}
	var out strings.Builder
	sep := func(i int) {
		if i > 0 {
			out.WriteByte(seps[i-1])
		}
	}
	for i := 0; i < len(parts); {
		matched := false
		// No registered name has more parts than maxParts: longer runs
		// are not tried (a line of dashes would cost cubic time).
		for j := min(len(parts), i+a.names.maxParts); j > i && !matched; j-- {
			if j-i == len(parts) {
				continue // the whole label: tried above
			}
			// Names inside a longer word: Calico's <node>-<CIDR>,
			// kubelet_<node>.log, <namespace>-api (format words such as
			// proxy are never registered).
			if p, ok := a.names.lookup(join(i, j)); ok {
				sep(i)
				out.WriteString(p)
				i, matched = j, true
			}
		}
		if matched {
			continue
		}
		if addr, ok := dashedIPv4(parts[i:]); ok && allDash(seps, i, 3) {
			sep(i)
			if i+5 <= len(parts) && seps[i+3] == '-' {
				if bits, err := strconv.Atoi(parts[i+4]); err == nil && bits <= 32 && len(parts[i+4]) <= 2 {
					if p := netip.PrefixFrom(addr, bits); p.Masked() == p {
						out.WriteString(strings.ReplaceAll(a.addrs.Prefix(p).Addr().String(), ".", "-") + "-" + parts[i+4])
						i += 5
						continue
					}
				}
			}
			out.WriteString(strings.ReplaceAll(a.addrs.Addr(addr).String(), ".", "-"))
			i += 4
			continue
		}
		sep(i)
		out.WriteString(parts[i])
		i++
	}
	return out.String()
}

// allDash: the n separators after part i are dashes.
func allDash(seps []byte, i, n int) bool {
	for k := i; k < i+n; k++ {
		if k >= len(seps) || seps[k] != '-' {
			return false
		}
	}
	return true
}

// dashedIPv4 reads four decimal octets from the first four parts.
func dashedIPv4(parts []string) (netip.Addr, bool) {
	if len(parts) < 4 {
		return netip.Addr{}, false
	}
	var b [4]byte
	for i := 0; i < 4; i++ {
		p := parts[i]
		if len(p) == 0 || len(p) > 3 || len(p) > 1 && p[0] == '0' {
			return netip.Addr{}, false
		}
		v, err := strconv.Atoi(p)
		if err != nil || v > 255 || strings.ContainsAny(p, "+-") {
			return netip.Addr{}, false
		}
		b[i] = byte(v)
	}
	return netip.AddrFrom4(b), true
}
