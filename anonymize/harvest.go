package anonymize

import (
	"bytes"
	"regexp"
	"strings"
)

// Where text states the host, its domain or a user, in every shape diag
// reads: a "Key : value" line (Format-List, ipconfig's dot leaders,
// systeminfo, YAML, INI, an environment dump, a PowerShell transcript's
// header, whose "Machine: NAME (Microsoft Windows NT …)" carries more
// after the name), a JSON or XML value, a key=value pair inside a line
// (klog's node="…", logfmt, an XML attribute) and a command-line flag
// (--hostname-override=…, -ComputerName …). Which keys state a name is
// harvestKind's to say. analyze does not read most of these, so the
// snapshot cannot say them.
var (
	harvestLine = lazyRegexp(`(?m)^[ \t]*(?:- )?([A-Za-z][A-Za-z0-9 _./-]{0,60}?)[ \t.]*[:=][ \t]*["']?(` + nameValue + `)["']?(?:[ \t]+\([^\n]*\))?[ \t]*\r?$`)
	// The indented lines that continue "DNS Suffix Search List".
	harvestMore = lazyRegexp(`(?im)^[ \t]*DNS Suffix Search List[ .]*:[^\n]*\n((?:[ \t]{20,}[A-Za-z0-9][A-Za-z0-9_.-]*[ \t]*\r?\n)+)`)
	// Anchored where a key starts (see harvestOneLine).
	harvestJSONAt     = lazyRegexp(`^"([A-Za-z0-9_./ -]{1,60})"\s*:\s*"(` + nameValue + `)"`)
	harvestJSONListAt = lazyRegexp(`^"([A-Za-z0-9_./ -]{1,60})"\s*:\s*\[([^\[\]{}]{1,1000})\]`)
	harvestXMLAt      = lazyRegexp(`^<([A-Za-z][A-Za-z0-9_:.-]{0,60})>[ \t]*(` + nameValue + `)[ \t]*</`)
	harvestPairAt     = lazyRegexp(`^([A-Za-z][A-Za-z0-9_./-]{0,60})=["']?(` + nameValue + `)(?:["'\s,;)}]|$)`)
	harvestQPairAt    = lazyRegexp(`^"([A-Za-z][A-Za-z0-9_./-]{0,60})"=["']?(` + nameValue + `)(?:["'\s,;)}]|$)`)
	harvestColonAt    = lazyRegexp(`^([A-Za-z][A-Za-z0-9_./-]{0,60}):[ \t]?["']?(` + nameValue + `)(?:["'\s,;)}\]]|$)`)
	// A person's or organization's name, which may hold spaces:
	// systeminfo's "Registered Owner:", Get-ComputerInfo's
	// WindowsRegisteredOrganization, net user's "Full name   NAME" (no
	// colon), in lines and JSON.
	harvestPhrase = lazyRegexp(`(?i)^[ \t]*(` + phraseKeys + `)(?:[ \t.]*:[ \t]*|[ \t]{2,})([^\s"][^\r\n"]{0,119}?)[ \t]*\r?$`)
	// reg query of CurrentVersion: "RegisteredOwner    REG_SZ    NAME".
	harvestPhraseReg = lazyRegexp(`(?i)^[ \t]*(` + phraseKeys + `)[ \t]+REG_(?:EXPAND_)?SZ[ \t]+(\S[^\r\n]{0,119}?)[ \t]*\r?$`)
	// [Environment]::SetEnvironmentVariable("NODENAME", "NAME", "Machine").
	harvestSetEnv = lazyRegexp(`(?i)SetEnvironmentVariable\(\s*["']([A-Za-z_][A-Za-z0-9_]{0,60})["']\s*,\s*["'](` + nameValue + `)["']`)
	// The kubelet's identity, system:node:NAME, in RBAC errors and CSRs.
	harvestSystemNode = lazyRegexp(`system:node:([A-Za-z0-9][A-Za-z0-9_.-]{0,252})`)
	harvestPhraseJSON = lazyRegexp(`(?i)"(` + phraseKeys + `)"\s*:\s*"([^"\\\n]{1,120})"`)
	// net user's "User name    NAME" (no colon).
	harvestNetUser = lazyRegexp(`(?i)^User name[ \t]{2,}(` + nameValue + `)[ \t]*\r?$`)
	// A namespace kubectl states: describe's "Namespace:  NAME", YAML's
	// and JSON's "namespace": NAME (a Kubernetes name, one DNS label).
	harvestNamespace = lazyRegexp(`(?i)^[ \t]*"?namespace"?[ \t]*:[ \t]*"?([a-z0-9][a-z0-9-]{0,62})"?,?[ \t]*\r?$`)
	// kubectl describe pod's "Node:  NAME/10.1.2.3".
	harvestDescribeNode = lazyRegexp(`^Node:[ \t]+([a-z0-9][a-z0-9.-]{0,252})/[0-9a-fA-F.:]+[ \t]*\r?$`)
	// kubectl describe node's "Name:  NAME", with "Roles:" on the next line.
	harvestDescribeName = lazyRegexp(`^Name:[ \t]+([a-z0-9][a-z0-9.-]{0,252})[ \t]*\r?\nRoles:`)
	// A PowerShell assignment: Calico's config.ps1 $env:NODENAME = "NAME",
	// a script's $NodeName = 'NAME'.
	harvestPSAssign = lazyRegexp(`^[ \t]*\$(?:env:)?([A-Za-z_][A-Za-z0-9_]{0,60})[ \t]*=[ \t]*["']?(` + nameValue + `)["']?[ \t]*;?[ \t]*(?:#[^\n]*)?\r?$`)
	harvestFlagAt   = lazyRegexp(`^([A-Za-z][A-Za-z0-9-]{0,60})[ \t]+["']?(` + nameValue + `)(?:["'\s]|$)`)
	// A Node's addresses of type Hostname, InternalDNS and ExternalDNS, in
	// kubectl's JSON and YAML, either field first.
	harvestNodeAddr = lazyRegexp(`(?i)"type"\s*:\s*"(?:Hostname|InternalDNS|ExternalDNS)"\s*,\s*"address"\s*:\s*"([^"\s]{1,255})"|` +
		`"address"\s*:\s*"([^"\s]{1,255})"\s*,\s*"type"\s*:\s*"(?:Hostname|InternalDNS|ExternalDNS)"|` +
		`(?m)-[ \t]+type:[ \t]*(?:Hostname|InternalDNS|ExternalDNS)[ \t]*\r?\n[ \t]+address:[ \t]*["']?([^"'\s]{1,255})|` +
		`(?m)-[ \t]+address:[ \t]*["']?([^"'\s]{1,255})["']?[ \t]*\r?\n[ \t]+type:[ \t]*(?:Hostname|InternalDNS|ExternalDNS)\b`)
	// A list of names: Format-List's {a, b} and JSON's ["a", "b"]
	// (SuffixSearchList).
	harvestLineList = lazyRegexp(`(?m)^[ \t]*([A-Za-z][A-Za-z0-9 _./-]{0,60}?)[ \t.]*:[ \t]*\{([^{}\n]{1,1000})\}[ \t]*\r?$`)
	// resolv.conf's search list and domain.
	harvestResolv = lazyRegexp(`(?m)^(search|domain)[ \t]+([^\n#]{1,1000})`)
	// C:\Users\name, \Users\name (HOMEPATH), also JSON-escaped
	// (C:\\Users\\name), and /home/name.
	harvestPath = lazyRegexp(`(?i)(?:(?:[A-Z]:|^|[\s="'])(?:\\\\?)Users(?:\\\\?)|/home/)([A-Za-z0-9][A-Za-z0-9_.-]*)`)
)

// phraseKeys state a person or an organization.
const phraseKeys = `Registered Owner|Registered Organization|(?:Windows|Os)?Registered(?:Owner|Organization|User)|OsOrganization|Organization|Full name|FullName|CsPrimaryOwnerName`

// nameValue is the shape of a stated name: a host, an FQDN, \\HOST (a
// logon server), DOMAIN\user (JSON: DOMAIN\\user), user@domain, HOST$ (the
// machine's account).
const nameValue = `(?:\\\\)?[A-Za-z0-9][A-Za-z0-9_.@$-]{0,254}(?:\\{1,2}[A-Za-z0-9][A-Za-z0-9_.$-]{0,254})?`

// Profile folders and accounts that are no one's.
var builtinUsers = map[string]bool{"public": true, "default": true, "default user": true, "all users": true,
	"administrator": true, "system": true, "localsystem": true, "networkservice": true, "localservice": true,
	"root": true, "admin": true, "nobody": true, "guest": true, "containeradministrator": true, "containeruser": true,
	"nt authority": true, "builtin": true, "font driver host": true, "window manager": true,
	"defaultaccount": true, "wdagutilityaccount": true, "krbtgt": true}

// What a key states.
const (
	statesHost   = "host"
	statesDomain = "domain"
	statesUser   = "user"
	statesLogon  = "logon server"
	// statesNetBIOS is a Windows domain or workgroup's short name
	// (USERDOMAIN, CsDomain of a workgroup machine).
	statesNetBIOS = "netbios"
)

// harvestKind says what a key's value names, or "": the keys of
// ipconfig, systeminfo, Get-ComputerInfo, WMI, the environment, a
// transcript's header, the kubelet's flags, configuration and log, a
// Node's labels.
func harvestKind(key string) string {
	k := normKey(key)
	if i := strings.LastIndexByte(k, '/'); i >= 0 {
		k = k[i+1:] // kubernetes.io/hostname
	}
	switch k {
	case "logonserver":
		return statesLogon
	case "machine", "computer", "node", "host", "csname", "cscaption", "systemname", "fullcomputername", "fullyqualifieddomainname",
		"clientname", "staticdnshostname", "internaldns", "externaldns":
		return statesHost
	case "username", "runasuser", "accountname", "samaccountname", "userprincipalname", "upn", "csusername", "csprimaryownername",
		"userid", "startname", "owner", "author", "logonuser", "runas":
		return statesUser
	case "userdomain", "csdomain", "csworkgroup", "domain", "userdomainroamingprofile", "logondomain", "workstationdomain":
		return statesNetBIOS // a dotted value is a DNS domain (see add)
	case "dnsdomain", "userdnsdomain", "domainname", "clusterdomain", "csdnsdomain":
		return statesDomain
	}
	switch {
	case strings.Contains(k, "hostname"), strings.Contains(k, "nodename"), strings.Contains(k, "computername"),
		strings.Contains(k, "machinename"), strings.HasSuffix(k, "fqdn"):
		return statesHost
	case strings.Contains(k, "suffix") && !strings.Contains(k, "length"):
		return statesDomain // DnsSuffix, ConnectionSpecificSuffix, SuffixSearchList
	}
	return ""
}

// normKey lower-cases a key and drops its spaces, '_', '-' and '.'.
func normKey(key string) string {
	b := make([]byte, 0, len(key))
	for i := 0; i < len(key); i++ {
		c := key[i]
		switch {
		case c == ' ' || c == '_' || c == '-' || c == '.':
		case c >= 'A' && c <= 'Z':
			b = append(b, c+'a'-'A')
		default:
			b = append(b, c)
		}
	}
	return string(b)
}

// notName are values of such keys that name nothing.
var notName = map[string]bool{"yes": true, "no": true, "unknown": true, "auto": true, "enabled": true, "disabled": true,
	"notset": true, "empty": true, "undefined": true, "any": true, "all": true,
	"microsoft": true} // a scheduled task's Author

// harvestTokens find the lines that may state a name (in lower case):
// the others, most of a large file, are not matched against every
// expression (Go's regexp reads a few MB a second with these).
var harvestTokens = [][]byte{[]byte("host"), []byte("node"), []byte("comput"), []byte("machine"), []byte("csname"), []byte("caption"),
	[]byte("systemname"), []byte("fqdn"), []byte("domain"), []byte("suffix"), []byte("user"), []byte("upn"), []byte("startname"),
	[]byte("owner"), []byte("author"), []byte("registered"), []byte("full"), []byte("organization"), []byte("runas"), []byte("logon"), []byte("clientname"), []byte("account"), []byte("workgroup"),
	[]byte("dns"), []byte("search"), []byte("/home/"), []byte("system name"), []byte("start name"), []byte("client name")}

// HarvestText registers the host, domain and user names a text states.
func (a *Anonymizer) HarvestText(text []byte) {
	var low []byte
	for start := 0; start < len(text); {
		end := len(text)
		if i := bytes.IndexByte(text[start:], '\n'); i >= 0 {
			end = start + i
		}
		low = append(low[:0], text[start:end]...)
		for i, c := range low {
			if c >= 'A' && c <= 'Z' {
				low[i] = c + 'a' - 'A'
			}
		}
		if bytes.Contains(low, []byte("namespace")) {
			if m := harvestNamespace().FindSubmatch(text[start:end]); m != nil && !systemNamespace(string(m[1])) {
				a.AddName(KindNamespace, string(m[1]))
			}
		}
		if bytes.HasPrefix(low, []byte("name:")) {
			if m := harvestDescribeName().FindSubmatch(text[start:min(len(text), end+8)]); m != nil {
				a.harvest("node", string(m[1]))
			}
		}
		if bytes.HasPrefix(low, []byte("node:")) {
			if m := harvestDescribeNode().FindSubmatch(text[start:end]); m != nil {
				a.harvest("node", string(m[1]))
			}
		}
		if tableToken(low) {
			a.harvestTable(text, start, end)
		}
		if bytes.IndexByte(text[start:end], '\\') >= 0 || bytes.IndexByte(text[start:end], '@') >= 0 {
			a.harvestAccounts(text[start:end])
		}
		if p := bytes.TrimRight(low, "\r \t"); bytes.HasSuffix(p, []byte("> whoami")) || bytes.HasSuffix(p, []byte("> whoami /upn")) {
			// A transcript's whoami: its answer, the next line, is the
			// account (fab\tkimura, tkimura@fab.internal).
			if s, e := lineAfter(text, end); s < e {
				if v := strings.TrimSpace(string(text[s:e])); validAccount(v) {
					a.harvestUser(v)
				}
			}
		}
		for _, tok := range harvestTokens {
			if bytes.Contains(low, tok) {
				a.harvestOneLine(text, start, end, low)
				break
			}
		}
		start = end + 1
	}
}

// harvestOneLine harvests the line text[start:end] (low: in lower case),
// and what continues it on the next lines (a JSON list, ipconfig's search
// list, a Node's address in YAML, whose type may come on the line before).
// The expressions are anchored where a key holding a token starts: Go's
// regexp is slow to search, fast to match at one place.
func (a *Anonymizer) harvestOneLine(text []byte, start, end int, low []byte) {
	line := text[start:end]
	pair := func(m [][]byte) { a.harvest(string(m[1]), string(m[2])) }
	list := func(m [][]byte) {
		if harvestKind(string(m[1])) == "" {
			return
		}
		for _, v := range strings.Split(string(m[2]), ",") {
			a.harvest(string(m[1]), strings.TrimSpace(v))
		}
	}
	match := func(re *regexp.Regexp, in []byte, f func([][]byte)) {
		if m := re.FindSubmatch(in); m != nil {
			f(m)
		}
	}
	// "Key : value", its key from the line's start to the first ':' or '='.
	if i := bytes.IndexAny(line, ":="); i > 0 && i <= 80 {
		key := strings.Trim(string(line[:i]), " \t.-")
		if harvestKind(key) != "" {
			match(harvestLine(), line, pair)
			if bytes.IndexByte(line, '{') >= 0 {
				match(harvestLineList(), line, list)
			}
		}
	}
	if bytes.Contains(low, []byte("registered")) || bytes.Contains(low, []byte("full")) || bytes.Contains(low, []byte("primaryowner")) || bytes.Contains(low, []byte("organization")) {
		phrase := func(m [][]byte) {
			kind := KindUser
			if bytes.Contains(bytes.ToLower(m[1]), []byte("organization")) {
				kind = KindOrg
			}
			a.addPhrase(kind, string(m[2]))
		}
		match(harvestPhrase(), line, phrase)
		match(harvestPhraseReg(), line, phrase)
		eachMatch(harvestPhraseJSON(), line, phrase)
	}
	if bytes.Contains(low, []byte("setenvironmentvariable")) {
		eachMatch(harvestSetEnv(), line, pair)
	}
	if bytes.Contains(low, []byte("system:node:")) {
		eachMatch(harvestSystemNode(), line, func(m [][]byte) { a.harvest("node", string(m[1])) })
	}
	if bytes.HasPrefix(low, []byte("user name")) {
		match(harvestNetUser(), line, func(m [][]byte) { a.harvestUser(string(m[1])) })
	}
	if t := bytes.TrimLeft(line, " \t"); len(t) > 0 && t[0] == '$' {
		match(harvestPSAssign(), line, pair)
	}
	for _, k := range tokenKeys(low) {
		s := k[0]
		for s < k[1] && line[s] == '-' {
			s++
		}
		if s > 0 && line[s-1] == '-' {
			match(harvestFlagAt(), line[s:], pair) // -ComputerName NAME
		}
		match(harvestPairAt(), line[s:], pair) // node="NAME", --hostname-override=NAME
		if s > 0 && line[s-1] == '"' {
			match(harvestQPairAt(), line[s-1:], pair) // klogr's "node"="NAME"
		} else if s > 0 {
			// A struct printed in a log ({NodeName:NAME}); not a bare
			// word before a colon (an image node:16-alpine).
			match(harvestColonAt(), line[s:], func(m [][]byte) {
				switch normKey(string(m[1])) {
				case "node", "host", "machine", "computer", "domain", "owner", "author", "runas", "upn":
				default:
					pair(m)
				}
			})
		}
		if s > 0 && line[s-1] == '<' {
			match(harvestXMLAt(), line[s-1:], pair)
		}
		// A JSON key may hold spaces (ConvertTo-Json of systeminfo).
		q := s
		for q > 0 && s-q <= 60 && (keyChar(low[q-1]) || low[q-1] == ' ') {
			q--
		}
		if q > 0 && line[q-1] == '"' {
			match(harvestJSONAt(), line[q-1:], pair)
			at := start + q - 1
			match(harvestJSONListAt(), text[at:min(len(text), at+maxListSpan)], list)
		}
	}
	if bytes.HasPrefix(low, []byte("search")) || bytes.HasPrefix(low, []byte("domain")) {
		match(harvestResolv(), line, func(m [][]byte) {
			for _, v := range strings.Fields(string(m[2])) {
				a.harvest("dns suffix", v)
			}
		})
	}
	if bytes.Contains(low, []byte("search list")) {
		eachMatch(harvestMore(), text[start:min(len(text), end+maxListSpan)], func(m [][]byte) {
			for _, l := range strings.Split(string(m[1]), "\n") {
				if l = strings.TrimSpace(l); l != "" {
					a.harvest("dns suffix", l)
				}
			}
		})
	}
	if bytes.Contains(low, []byte("internaldns")) || bytes.Contains(low, []byte("externaldns")) || bytes.Contains(low, []byte("hostname\"")) || bytes.Contains(low, []byte("type: hostname")) {
		prev := bytes.LastIndexByte(text[:max(start-1, 0)], '\n') + 1
		next := len(text)
		if i := bytes.IndexByte(text[min(end+1, len(text)):], '\n'); i >= 0 {
			next = end + 1 + i
		}
		eachMatch(harvestNodeAddr(), text[prev:next], func(m [][]byte) {
			for _, v := range m[1:] {
				if len(v) > 0 {
					a.harvest("hostname", string(v))
				}
			}
		})
	}
	if bytes.Contains(low, []byte(`users\`)) || bytes.Contains(low, []byte("/home/")) {
		eachMatch(harvestPath(), line, func(m [][]byte) {
			if u := string(m[1]); !builtinUsers[strings.ToLower(u)] {
				a.AddName(KindUser, u)
			}
		})
	}
}

// tokenKeys are the spans [start, end) of the words of low (letters,
// digits, '_', '.', '/', '-') that hold a token, each once, in order.
func tokenKeys(low []byte) [][2]int {
	var keys [][2]int
	for _, tok := range harvestTokens {
		for off := 0; ; {
			i := bytes.Index(low[off:], tok)
			if i < 0 {
				break
			}
			i += off
			s, e := i, i+len(tok)
			for s > 0 && keyChar(low[s-1]) {
				s--
			}
			for e < len(low) && keyChar(low[e]) {
				e++
			}
			seen := false
			for _, k := range keys {
				seen = seen || k[0] == s
			}
			if !seen {
				keys = append(keys, [2]int{s, e})
			}
			off = e
		}
	}
	return keys
}

func keyChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '/' || c == '-'
}

// maxListSpan bounds how far past its line a list is read.
const maxListSpan = 4096

// eachMatch calls f with the groups of each match of re in text, one
// match at a time: a file of a million Key : value lines costs no list of
// a million matches.
func eachMatch(re *regexp.Regexp, text []byte, f func([][]byte)) {
	for pos := 0; pos < len(text); {
		loc := re.FindSubmatchIndex(text[pos:])
		if loc == nil {
			return
		}
		m := make([][]byte, len(loc)/2)
		for i := range m {
			if loc[2*i] >= 0 {
				m[i] = text[pos+loc[2*i] : pos+loc[2*i+1]]
			}
		}
		f(m)
		pos += max(loc[1], 1)
	}
}

// harvest registers value as what key states.
func (a *Anonymizer) harvest(key, v string) {
	kind := harvestKind(key)
	if kind == "" {
		return
	}
	v = strings.Trim(strings.TrimSpace(strings.ReplaceAll(v, `\\`, `\`)), `"'.`)
	low := strings.ToLower(v)
	if v == "" || notName[low] || vocabulary[low] && low != "host" && low != "node" || strings.HasPrefix(low, "s-1-") {
		return // nothing, a word, a SID
	}
	switch kind {
	case statesLogon:
		a.AddName(KindHost, strings.TrimLeft(v, `\`))
	case statesHost:
		if h, ok := strings.CutSuffix(strings.TrimLeft(v, `\`), "$"); ok || !strings.ContainsAny(v, `\@`) {
			if !kubernetesName(h) {
				a.AddName(KindHost, h)
			}
		}
	case statesUser:
		a.harvestUser(v)
	case statesNetBIOS:
		if strings.Contains(v, ".") {
			a.harvestDomain(v, false)
		} else if !strings.ContainsAny(v, `\@$`) {
			a.AddName(KindWinDomain, v)
		}
	case statesDomain:
		a.harvestDomain(v, suffixKey(key))
	}
}

// validAccount: v is shaped as DOMAIN\user, user@domain or a bare user.
func validAccount(v string) bool {
	d, u, ok := strings.Cut(v, `\`)
	if !ok {
		u, d, ok = strings.Cut(v, "@")
	}
	if !ok {
		return validName(v)
	}
	return validName(u) && validName(d) && len(d) <= 255
}

// harvestUser registers DOMAIN\user, user@domain and user; a machine's
// own account (HOST$) names the host.
func (a *Anonymizer) harvestUser(v string) {
	if dom, user, ok := strings.Cut(v, `\`); ok {
		switch strings.ToLower(dom) {
		case "builtin", "nt authority", "nt service", "iis apppool", "window manager", "font driver host", "nt virtual machine":
			return // a built-in account or group
		case ".": // .\user, an account of the machine
		default:
			if strings.Contains(dom, ".") {
				a.harvestDomain(dom, false)
			} else {
				a.AddName(KindWinDomain, dom)
			}
		}
		v = user
	}
	if user, dom, ok := strings.Cut(v, "@"); ok {
		a.harvestDomain(dom, false)
		v = user
	}
	if h, ok := strings.CutSuffix(v, "$"); ok {
		a.AddName(KindHost, h)
		return
	}
	if !builtinUsers[strings.ToLower(v)] {
		a.AddName(KindUser, v)
	}
}

// harvestDomain registers a DNS domain or suffix, not Kubernetes' own
// search suffixes; a single-label suffix (m1, corp) is a word free text
// may hold too, so it is replaced where a field states it and named as
// kept elsewhere.
func (a *Anonymizer) harvestDomain(v string, suffix bool) {
	low := strings.ToLower(v)
	switch {
	case kubernetesName(low) || strings.HasPrefix(low, "svc.") || low == "svc":
	case strings.Contains(v, "."):
		a.AddName(KindDomain, v)
	case suffix:
		a.names.addStated(KindDomain, v, "a single-label DNS suffix")
	}
}

// kubernetesName: a name of the cluster's own DNS (kubernetes.default.svc,
// *.cluster.local), not the customer's.
func kubernetesName(v string) bool {
	low := strings.ToLower(v)
	return strings.HasSuffix(low, "cluster.local") || strings.Contains(low, ".svc.") || strings.HasSuffix(low, ".svc")
}

// suffixKey: a key stating a DNS suffix or DNS domain (not a Windows
// domain or workgroup, "Domain : WORKGROUP").
func suffixKey(k string) bool {
	k = strings.NewReplacer(" ", "", "_", "", "-", "").Replace(strings.ToLower(k))
	return strings.Contains(k, "suffix") || k == "dnsdomain" || k == "userdnsdomain"
}
