package anonymize

import (
	"bytes"
	"regexp"
	"strings"
)

// A host name such as vm or master cannot be replaced wherever it stands
// as a word (every "vm" and "master" of the bundle would go), but where a
// field states a host, node or domain name it is that name whatever its
// length. These are those fields: a JSON or XML value, a "Key : value"
// or KEY=value line (Format-List, ipconfig's dot leaders, an environment
// dump, YAML, a transcript's "Machine: NAME (Microsoft Windows NT …)"), a
// key=value pair in a line (klog's node="…") and a command-line flag,
// whose key names a host, node, computer, machine, server, domain or
// user, or is an FQDN (fqdn, nodeFQDN).
var (
	fieldJSON = lazyRegexp(`"([A-Za-z0-9_./ -]{1,60})"(\s*:\s*)"([^"\\\n]{1,255})"`)
	fieldXML  = lazyRegexp(`<([A-Za-z][A-Za-z0-9_:.-]{0,60})>([^<\n]{1,255})</`)
	fieldLine = lazyRegexp(`(?m)^([ \t]*)([A-Za-z][A-Za-z0-9 _./-]{0,60}?)([ \t.]*[:=][ \t]*["']?(?:\\\\)?)([A-Za-z0-9][A-Za-z0-9_.$@\\-]{0,254})(["']?(?:[ \t]+\([^\n]*\))?[ \t]*\r?)$`)
	fieldFlag = lazyRegexp(`(?i)((?:^|\s)--?([a-z][a-z-]{0,40})[= ]["']?)([A-Za-z0-9][A-Za-z0-9_.-]{0,254})`)
	fieldPS   = lazyRegexp(`(?m)^([ \t]*\$(?:env:)?([A-Za-z_][A-Za-z0-9_]{0,60})[ \t]*=[ \t]*["']?)([A-Za-z0-9][A-Za-z0-9_.$@\\-]{0,254})`)
	fieldPair = lazyRegexp(`((?:^|[\s,;{(])"?([A-Za-z][A-Za-z0-9_.-]{0,40})"?=["']?)([A-Za-z0-9][A-Za-z0-9_.-]{0,254})`)
)

// statesName: a key whose value is a host, node or domain name.
func statesName(key string, anyName bool) bool {
	k := strings.ToLower(key)
	k = strings.NewReplacer(" ", "", "_", "", "-", "", ".", "").Replace(k)
	if anyName && (k == "name" || k == "address" || k == "affinity") {
		return true // a Node's metadata.name, its Hostname address, Calico's host:<node>
	}
	for _, w := range []string{"host", "node", "computer", "csname", "caption", "systemname", "machine", "server", "domain", "dnssuffix", "fqdn", "user", "account", "owner", "author", "startname", "runas", "clientname", "internaldns", "externaldns"} {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}

// statedFields replaces the registered names in the fields that state
// them. Only names kept out of free text need it; the others the word
// scanner replaces anyway.
func (a *Anonymizer) statedFields(in []byte) []byte {
	if len(a.names.stated) == 0 {
		return in
	}
	// Line by line, and only the lines that hold such a name: a large
	// file of Key : value lines costs no match list.
	var out []byte
	for rest := in; len(rest) > 0; {
		n := bytes.IndexByte(rest, '\n') + 1
		if n == 0 {
			n = len(rest)
		}
		line := rest[:n]
		rest = rest[n:]
		if a.holdsStated(line) {
			line = a.statedLine(line)
		}
		out = append(out, line...)
	}
	return out
}

// holdsStated: some name kept out of free text is in line, in any case.
func (a *Anonymizer) holdsStated(line []byte) bool {
	low := bytes.ToLower(line)
	for name := range a.names.stated {
		if bytes.Contains(low, []byte(name)) {
			return true
		}
	}
	return false
}

func (a *Anonymizer) statedLine(l []byte) []byte {
	l = replaceGroup(l, fieldJSON(), 3, func(m [][]byte) bool { return statesName(string(m[1]), true) }, a.statedValue)
	if bytes.IndexByte(l, '<') >= 0 {
		l = replaceGroup(l, fieldXML(), 2, func(m [][]byte) bool { return statesName(string(m[1]), false) }, a.statedValue)
	}
	l = replaceGroup(l, fieldLine(), 4, func(m [][]byte) bool { return statesName(string(m[2]), false) }, a.statedValue)
	if t := bytes.TrimLeft(l, " \t"); len(t) > 0 && t[0] == '$' {
		l = replaceGroup(l, fieldPS(), 3, func(m [][]byte) bool { return statesName(string(m[2]), false) }, a.statedValue)
	}
	l = replaceGroup(l, fieldFlag(), 3, func(m [][]byte) bool { return statesName(string(m[2]), false) }, a.statedValue)
	if bytes.IndexByte(l, '=') < 0 {
		return l
	}
	return replaceGroup(l, fieldPair(), 3, func(m [][]byte) bool { return statesName(string(m[2]), false) }, a.statedValue)
}

// statedValue maps a field's value: the name itself, its first label (an
// FQDN), the part after "host:" (Calico's block affinity), the name
// before a dashed address (Calico's block name vm-100-244-1-0-26), each
// side of DOMAIN\user and user@domain, a machine's account (HOST$).
func (a *Anonymizer) statedValue(v string) (string, bool) {
	if p, ok := a.names.statedName(v); ok {
		return p, true
	}
	for _, sep := range []string{`\`, "@"} {
		if x, y, ok := strings.Cut(v, sep); ok {
			px, okx := a.statedValue(x)
			py, oky := a.statedValue(y)
			if !okx {
				px = x
			}
			if !oky {
				py = y
			}
			return px + sep + py, okx || oky
		}
	}
	if h, ok := strings.CutSuffix(v, "$"); ok {
		if p, ok := a.statedValue(h); ok {
			return p + "$", true
		}
	}
	if rest, ok := strings.CutPrefix(v, "host:"); ok {
		if p, ok := a.statedValue(rest); ok {
			return "host:" + p, true
		}
	}
	if host, domain, ok := strings.Cut(v, "."); ok {
		if p, ok := a.names.statedName(host); ok {
			return p + "." + domain, true
		}
	}
	for i := 1; i+1 < len(v); i++ {
		if v[i] == '-' && v[i+1] >= '0' && v[i+1] <= '9' {
			if p, ok := a.names.statedName(v[:i]); ok {
				return p + v[i:], true
			}
		}
	}
	return "", false
}

// replaceGroup replaces group g of each match of re that keep accepts by
// what repl makes of it.
func replaceGroup(in []byte, re *regexp.Regexp, g int, keep func([][]byte) bool, repl func(string) (string, bool)) []byte {
	ms := re.FindAllSubmatchIndex(in, -1)
	if ms == nil {
		return in
	}
	var out []byte
	last := 0
	for _, m := range ms {
		groups := make([][]byte, len(m)/2)
		for i := range groups {
			if m[2*i] >= 0 {
				groups[i] = in[m[2*i]:m[2*i+1]]
			}
		}
		if !keep(groups) {
			continue
		}
		s, e := m[2*g], m[2*g+1]
		r, ok := repl(string(in[s:e]))
		if !ok || s < last {
			continue
		}
		out = append(out, in[last:s]...)
		out = append(out, r...)
		last = e
	}
	if out == nil {
		return in
	}
	return append(out, in[last:]...)
}

// Kept lists the host and domain names replaced only where a field states
// them, so that the user knows to look for them in free text.
func (a *Anonymizer) Kept() []KeptName { return append([]KeptName(nil), a.names.kept...) }

// WholeName maps a value that is a name as a whole (the manifest's node),
// short or common names included; other values as text.
func (a *Anonymizer) WholeName(s string) string {
	if p, ok := a.statedValue(s); ok {
		return string(a.Text([]byte(p)))
	}
	return a.String(s)
}
