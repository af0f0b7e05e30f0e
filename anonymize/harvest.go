package anonymize

import (
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
	harvestJSON = lazyRegexp(`"([A-Za-z0-9_./ -]{1,60})"\s*:\s*"(` + nameValue + `)"`)
	harvestXML  = lazyRegexp(`<([A-Za-z][A-Za-z0-9_:.-]{0,60})>[ \t]*(` + nameValue + `)[ \t]*</`)
	harvestPair = lazyRegexp(`(?:^|[\s,;{(])-{0,2}([A-Za-z][A-Za-z0-9_./-]{0,60})=["']?(` + nameValue + `)(?:["'\s,;)}]|$)`)
	harvestFlag = lazyRegexp(`(?:^|\s)--?([A-Za-z][A-Za-z0-9-]{0,60})[ \t]+["']?(` + nameValue + `)(?:["'\s]|$)`)
	// A Node's addresses of type Hostname, InternalDNS and ExternalDNS, in
	// kubectl's JSON and YAML, either field first.
	harvestNodeAddr = lazyRegexp(`(?i)"type"\s*:\s*"(?:Hostname|InternalDNS|ExternalDNS)"\s*,\s*"address"\s*:\s*"([^"\s]{1,255})"|` +
		`"address"\s*:\s*"([^"\s]{1,255})"\s*,\s*"type"\s*:\s*"(?:Hostname|InternalDNS|ExternalDNS)"|` +
		`(?m)-[ \t]+type:[ \t]*(?:Hostname|InternalDNS|ExternalDNS)[ \t]*\r?\n[ \t]+address:[ \t]*["']?([^"'\s]{1,255})|` +
		`(?m)-[ \t]+address:[ \t]*["']?([^"'\s]{1,255})["']?[ \t]*\r?\n[ \t]+type:[ \t]*(?:Hostname|InternalDNS|ExternalDNS)\b`)
	// C:\Users\name, also JSON-escaped (C:\\Users\\name), and /home/name.
	harvestPath = lazyRegexp(`(?i)(?:[A-Z]:(?:\\\\?)Users(?:\\\\?)|/home/)([A-Za-z0-9][A-Za-z0-9_.-]*)`)
)

// nameValue is the shape of a stated name: a host, an FQDN, \\HOST (a
// logon server), DOMAIN\user (JSON: DOMAIN\\user), user@domain, HOST$ (the
// machine's account).
const nameValue = `(?:\\\\)?[A-Za-z0-9][A-Za-z0-9_.@$-]{0,254}(?:\\{1,2}[A-Za-z0-9][A-Za-z0-9_.$-]{0,254})?`

// Profile folders and accounts that are no one's.
var builtinUsers = map[string]bool{"public": true, "default": true, "default user": true, "all users": true,
	"administrator": true, "system": true, "localsystem": true, "networkservice": true, "localservice": true,
	"root": true, "admin": true, "nobody": true, "guest": true, "containeradministrator": true, "containeruser": true,
	"nt authority": true, "builtin": true, "font driver host": true, "window manager": true}

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
	k := strings.NewReplacer(" ", "", "_", "", "-", "", ".", "").Replace(strings.ToLower(key))
	if i := strings.LastIndexByte(k, '/'); i >= 0 {
		k = k[i+1:] // kubernetes.io/hostname
	}
	switch k {
	case "logonserver":
		return statesLogon
	case "machine", "computer", "node", "csname", "cscaption", "systemname", "fullcomputername", "fullyqualifieddomainname":
		return statesHost
	case "username", "runasuser", "accountname", "samaccountname", "userprincipalname", "upn", "csusername", "csprimaryownername":
		return statesUser
	case "userdomain", "csdomain", "csworkgroup", "domain":
		return statesNetBIOS // a dotted value is a DNS domain (see add)
	case "dnsdomain", "userdnsdomain", "domainname", "clusterdomain", "csdnsdomain":
		return statesDomain
	}
	switch {
	case strings.Contains(k, "hostname"), strings.Contains(k, "nodename"), strings.Contains(k, "computername"),
		strings.Contains(k, "machinename"), strings.HasSuffix(k, "fqdn"):
		return statesHost
	case strings.Contains(k, "dnssuffix"):
		return statesDomain
	}
	return ""
}

// notName are values of such keys that name nothing.
var notName = map[string]bool{"yes": true, "no": true, "unknown": true, "auto": true, "enabled": true, "disabled": true,
	"notset": true, "empty": true, "undefined": true, "any": true, "all": true}

// HarvestText registers the host, domain and user names a text states.
func (a *Anonymizer) HarvestText(text []byte) {
	eachMatch(harvestLine(), text, func(m [][]byte) { a.harvest(string(m[1]), string(m[2])) })
	eachMatch(harvestMore(), text, func(m [][]byte) {
		for _, l := range strings.Split(string(m[1]), "\n") {
			if l = strings.TrimSpace(l); l != "" {
				a.harvest("dns suffix", l)
			}
		}
	})
	for _, re := range []func() *regexp.Regexp{harvestJSON, harvestXML, harvestPair, harvestFlag} {
		eachMatch(re(), text, func(m [][]byte) { a.harvest(string(m[1]), string(m[2])) })
	}
	eachMatch(harvestNodeAddr(), text, func(m [][]byte) {
		for _, v := range m[1:] {
			if len(v) > 0 {
				a.harvest("hostname", string(v))
			}
		}
	})
	eachMatch(harvestPath(), text, func(m [][]byte) {
		if u := string(m[1]); !builtinUsers[strings.ToLower(u)] {
			a.AddName(KindUser, u)
		}
	})
}

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
	if v == "" || notName[low] || vocabulary[low] && low != "host" && low != "node" {
		return
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

// harvestUser registers DOMAIN\user, user@domain and user; a machine's
// own account (HOST$) names the host.
func (a *Anonymizer) harvestUser(v string) {
	if dom, user, ok := strings.Cut(v, `\`); ok {
		if !builtinUsers[strings.ToLower(dom)] && !strings.EqualFold(dom, "NT AUTHORITY") {
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
	return strings.Contains(k, "dnssuffix") || k == "dnsdomain" || k == "userdnsdomain"
}
