package anonymize

import (
	"strings"
)

// Where text names the host, its domain or a user: ipconfig /all,
// systeminfo, environment dumps, WMI objects as JSON, user profile paths.
// analyze does not read these, so the snapshot cannot say them.
var (
	harvestLine = lazyRegexp(`(?im)^[ \t]*(Host Name|FQDN|Full Computer Name|DNSHostName|MachineName|Primary Dns Suffix|Connection-specific DNS Suffix|DNS Suffix Search List|Domain|COMPUTERNAME|USERDNSDOMAIN|USERDOMAIN|USERNAME|LOGONSERVER|Logon Server)[ .]*[:=][ \t]*(?:\\\\)?([A-Za-z0-9][A-Za-z0-9_.-]*)[ \t]*\r?$`)
	// The indented lines that continue "DNS Suffix Search List".
	harvestMore = lazyRegexp(`(?im)^[ \t]*DNS Suffix Search List[ .]*:[^\n]*\n((?:[ \t]{20,}[A-Za-z0-9][A-Za-z0-9_.-]*[ \t]*\r?\n)+)`)
	// fqdn, nodeFQDN, hostFqdn, FullyQualifiedDomainName, MachineName:
	// host names too, fully qualified or not.
	harvestJSON = lazyRegexp(`(?i)"(DNSHostName|HostName|ComputerName|CSName|MachineName|[A-Za-z_]*FQDN|FullyQualifiedDomainName|Domain|DNSDomain|DnsSuffix|PrimaryDnsSuffix|UserName)"\s*:\s*"([A-Za-z0-9][A-Za-z0-9_.\\-]*)"`)
	// C:\Users\name, also JSON-escaped (C:\\Users\\name), and /home/name.
	harvestPath = lazyRegexp(`(?i)(?:[A-Z]:(?:\\\\?)Users(?:\\\\?)|/home/)([A-Za-z0-9][A-Za-z0-9_.-]*)`)
)

// Profile folders that are no one's.
var builtinUsers = map[string]bool{"public": true, "default": true, "default user": true, "all users": true,
	"administrator": true, "system": true, "localsystem": true, "networkservice": true, "localservice": true}

// HarvestText registers the host, domain and user names a text states.
func (a *Anonymizer) HarvestText(text []byte) {
	add := func(key, v string) {
		v = strings.TrimSpace(v)
		switch k := strings.ToLower(key); {
		case k == "host name" || k == "computername" || k == "dnshostname" || k == "hostname" || k == "csname" ||
			k == "machinename" || k == "full computer name" || strings.HasSuffix(k, "fqdn") || k == "fullyqualifieddomainname":
			a.AddName(KindHost, v)
		case k == "logonserver" || k == "logon server":
			a.AddName(KindHost, strings.TrimLeft(v, `\`))
		case k == "username" || k == "userdomain" && !strings.Contains(v, "."):
			// DOMAIN\user (JSON: DOMAIN\\user): both are names.
			if dom, user, ok := strings.Cut(strings.ReplaceAll(v, `\\`, `\`), `\`); ok {
				a.AddName(KindName, dom)
				v = user
			}
			if !builtinUsers[strings.ToLower(v)] && !strings.HasSuffix(v, "$") {
				a.AddName(KindName, v)
			}
		default: // the suffixes and domains, not Kubernetes' own search suffixes
			low := strings.ToLower(v)
			if strings.Contains(v, ".") && !strings.HasSuffix(low, "cluster.local") && !strings.HasPrefix(low, "svc.") && !strings.Contains(low, ".svc.") {
				a.AddName(KindDomain, v)
			} else if !strings.Contains(v, ".") && suffixKey(k) && low != "svc" {
				// A single-label suffix (m1, corp): a word free text may
				// hold too, so replaced where a field states it, and named
				// as kept elsewhere.
				a.names.addStated(KindDomain, v, "a single-label DNS suffix")
			}
		}
	}
	for _, m := range harvestLine().FindAllSubmatch(text, -1) {
		add(string(m[1]), string(m[2]))
	}
	for _, m := range harvestMore().FindAllSubmatch(text, -1) {
		for _, l := range strings.Split(string(m[1]), "\n") {
			if l = strings.TrimSpace(l); l != "" {
				add("dns suffix", l)
			}
		}
	}
	for _, m := range harvestJSON().FindAllSubmatch(text, -1) {
		add(string(m[1]), strings.ReplaceAll(string(m[2]), `\\`, `\`))
	}
	for _, m := range harvestPath().FindAllSubmatch(text, -1) {
		if u := string(m[1]); !builtinUsers[strings.ToLower(u)] {
			a.AddName(KindName, u)
		}
	}
}

// suffixKey: a key stating a DNS suffix or DNS domain (not a Windows
// domain or workgroup, "Domain : WORKGROUP").
func suffixKey(k string) bool {
	k = strings.NewReplacer(" ", "", "_", "", "-", "").Replace(k)
	return strings.Contains(k, "dnssuffix") || k == "dnsdomain" || k == "userdnsdomain"
}
