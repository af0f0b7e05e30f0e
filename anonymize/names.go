package anonymize

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base32"
	"fmt"
	"sort"
	"strings"
)

// Kinds of names, each with its own pseudonym prefix so that a reader of
// the anonymized bundle still knows a node from a namespace.
const (
	KindHost      = "host"
	KindDomain    = "domain"
	KindNamespace = "ns"
	KindName      = "name" // a Service, pod or other object name
	KindUser      = "user" // a user account
	// KindWinDomain is a Windows domain's or workgroup's short (NetBIOS)
	// name, as in DOMAIN\user.
	KindWinDomain = "windomain"
	// KindOrg is an organization a field names (Registered Organization).
	KindOrg = "org"
)

// wellKnown names are kept in text: they are software defaults every
// cluster has, not the customer's, and rules (and readers) recognise them.
var wellKnown = map[string]bool{
	"default": true, "kube-system": true, "kube-public": true, "kube-node-lease": true, "kube-flannel": true,
	"calico-system": true, "calico-apiserver": true, "tigera-operator": true, "kubernetes": true, "kube-dns": true,
	"coredns": true, "cluster.local": true, "svc.cluster.local": true, "localhost": true, "localdomain": true,
	"workgroup": true, "windows": true, "linux": true, "master": true, "node": true, "external": true,
	"cbr0": true, "nat": true, "vxlan0": true, "host": true, "local": true, "internal": true,
}

// nameless are the host and domain names that name no one: they are not
// replaced even where a field states them.
var nameless = map[string]bool{"localhost": true, "localdomain": true, "localhost.localdomain": true, "workgroup": true,
	"cluster.local": true, "svc.cluster.local": true, "local": true, "(none)": true}

// minNameLen keeps short tokens (a one-letter host name) from replacing
// every such letter in the bundle.
const minNameLen = 3

// nameMapper holds the names to replace and their pseudonyms.
type nameMapper struct {
	key   []byte
	names map[string]string // lower-case name → pseudonym, replaced in all text
	// stated are host and domain names too short or too common to
	// replace in free text (vm, master): replaced only where a field
	// states a host, node or domain name (see fields.go), and reported.
	stated map[string]string
	kept   []KeptName
	// maxLabels is the most dot-separated labels a name has, maxParts
	// the most '-' and '_' separated parts.
	maxLabels int
	maxParts  int
}

// KeptName is a host or domain name left in free text: replaced only
// where a field states it.
type KeptName struct {
	Name, Kind, Reason string
}

func newNameMapper(k Key) *nameMapper {
	return &nameMapper{key: k.derive("name"), names: map[string]string{}, stated: map[string]string{}, maxLabels: 1, maxParts: 1}
}

// Add registers a name of a kind. A fully qualified host name registers
// its first label as a host name and the rest as a domain, so the short
// form found elsewhere is replaced as well. A host or domain name too
// short or too common to replace in free text is replaced where a field
// states it, and listed by Kept.
func (m *nameMapper) Add(kind, name string) {
	name, low, ok := m.newName(name)
	if !ok {
		return
	}
	// Names a field states as such: too short or too common for free
	// text, they are still replaced there, and named as kept.
	stated := kind == KindHost || kind == KindDomain || kind == KindUser || kind == KindWinDomain
	if kind == KindHost {
		if host, domain, ok := strings.Cut(low, "."); ok {
			m.Add(KindHost, host)
			if strings.Contains(domain, ".") {
				m.Add(KindDomain, domain)
			}
			// A part that is not replaced (nameless, or kept in free
			// text) stays.
			// A whole FQDN is safe to replace in free text even when
			// its host label alone (vm) is not.
			hp, dp := m.names[host], m.names[domain]
			if hp == "" {
				hp = m.stated[host]
			}
			if hp == "" {
				hp = host
			}
			if dp == "" {
				dp = domain
			}
			if hp != host || dp != domain {
				m.names[low] = hp + "." + dp
				m.maxLabels = max(m.maxLabels, strings.Count(low, ".")+1)
			}
			return
		}
	}
	if kind == KindDomain {
		if plat, ok := platformDomain(low); ok {
			// Under a cloud's or vendor's own domain (reddog.microsoft.com,
			// ec2.internal): only the labels before it are mapped; the
			// platform's domain, in image names and XML namespaces
			// everywhere, is no one's.
			if low == plat {
				return
			}
			labels := strings.TrimSuffix(low, "."+plat)
			m.names[low] = m.pseudonym(kind, labels) + "." + plat
			m.maxLabels = max(m.maxLabels, strings.Count(low, ".")+1)
			return
		}
		// contoso.com stands alone too where corp.contoso.com was stated.
		if _, parent, ok := strings.Cut(low, "."); ok && strings.Contains(parent, ".") && !publicSuffix(parent) {
			m.Add(KindDomain, parent)
		}
	}
	reason := ""
	switch {
	case len(name) < minNameLen:
		reason = fmt.Sprintf("%d characters", len(name))
	case wellKnown[low] || vocabulary[low]:
		reason = "a word the bundle's formats use"
	}
	if reason != "" {
		if stated {
			m.stated[low] = m.pseudonym(kind, low)
			m.kept = append(m.kept, KeptName{Name: low, Kind: kind, Reason: reason})
		}
		return
	}
	if kind == KindDomain {
		m.names[low] = m.pseudonym(kind, low) + ".example"
	} else {
		m.names[low] = m.pseudonym(kind, low)
	}
	m.maxParts = max(m.maxParts, strings.Count(low, "-")+strings.Count(low, "_")+1)
	m.maxLabels = max(m.maxLabels, strings.Count(low, ".")+1)
}

// newName trims a name as the bundle states it and says whether it is one
// to register: valid, not a placeholder, not registered already.
func (m *nameMapper) newName(name string) (trimmed, low string, ok bool) {
	name = strings.Trim(strings.TrimSpace(name), ".")
	low = strings.ToLower(name)
	if name == "" || !validName(name) || nameless[low] {
		return "", "", false
	}
	if _, seen := m.names[low]; seen {
		return "", "", false
	}
	if _, seen := m.stated[low]; seen {
		return "", "", false
	}
	return name, low, true
}

// addStated registers a host or domain name to replace only where a
// field states it, and to name as kept, whatever its length: a name that
// is safe to replace in fields but not in free text for reason.
func (m *nameMapper) addStated(kind, name, reason string) {
	name, low, ok := m.newName(name)
	if !ok {
		return
	}
	if len(name) < minNameLen || wellKnown[low] || vocabulary[low] {
		m.Add(kind, name) // kept for its length or as a word, and said so
		return
	}
	m.stated[low] = m.pseudonym(kind, low)
	m.kept = append(m.kept, KeptName{Name: low, Kind: kind, Reason: reason})
}

func (m *nameMapper) pseudonym(kind, low string) string {
	h := hmac.New(sha256.New, m.key)
	h.Write([]byte(kind + "\x00" + low))
	enc := base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(h.Sum(nil)[:5])
	return kind + "-" + strings.ToLower(enc)
}

// validName: letters, digits, '-', '_' and '.', and at least one letter
// (a number is not a name).
func validName(s string) bool {
	letter := false
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letter = true
		case c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.':
		default:
			return false
		}
	}
	return letter
}

// statedName returns the pseudonym of a name in a field that states a
// host, node or domain name: every registered name, short or common too.
func (m *nameMapper) statedName(word string) (string, bool) {
	if p, ok := m.stated[strings.ToLower(word)]; ok {
		if strings.ToUpper(word) == word {
			return strings.ToUpper(p), true
		}
		return p, true
	}
	return m.lookup(word)
}

// lookup returns the pseudonym of a name, spelled in the original's case
// when that was all upper case (Windows host names often are).
func (m *nameMapper) lookup(word string) (string, bool) {
	p, ok := m.names[strings.ToLower(word)]
	if !ok {
		return "", false
	}
	if strings.ToUpper(word) == word {
		return strings.ToUpper(p), true
	}
	return p, true
}

// hasPrefix: some registered name starts the label (followed by - or _).
func (m *nameMapper) hasPrefix(label string) bool {
	low := strings.ToLower(label)
	for k := 1; k < len(low); k++ {
		if low[k] == '-' || low[k] == '_' {
			if _, ok := m.names[low[:k]]; ok {
				return true
			}
		}
	}
	return false
}

// vocabulary: words of the formats diag reads that an object may also be
// named (a namespace called overlay, a Service called proxy): they are not
// replaced, or what diag reads would change.
var vocabulary = map[string]bool{
	"overlay": true, "l2bridge": true, "l2tunnel": true, "transparent": true, "ics": true, "private": true, "mirrored": true, "tunnel": true,
	"proxy": true, "dns": true, "dhcp": true, "vxlan": true, "flannel": true, "calico": true, "antrea": true, "cilium": true, "kube-proxy": true,
	"ethernet": true, "vethernet": true, "vip": true, "acl": true, "elb": true, "outboundnat": true, "sdnroute": true, "route": true, "routes": true,
	"remote": true, "policy": true, "policies": true, "network": true, "networks": true, "endpoint": true, "endpoints": true, "service": true,
	"services": true, "pods": true, "pod": true, "nodes": true, "logs": true, "config": true, "events": true, "hns": true, "vfp": true, "cni": true,
	"true": true, "false": true, "none": true, "null": true, "tcp": true, "udp": true, "icmp": true, "ready": true, "running": true, "app": true,
	"web": true, "api": true, "test": true, "demo": true, "prod": true, "dev": true, "staging": true, "monitoring": true, "ingress": true,
	// the bundle's own folders and the API groups and labels that carry
	// them (k8s/nodes.json, discovery.k8s.io, k8s-app, logs/kubelet/)
	"k8s": true, "capture": true, "captures": true, "kubelet": true, "containerd": true,
}

// platformDomains are the registrable domains of clouds, vendors and
// Kubernetes itself that a node's DNS suffix, search list or FQDN ends
// in: Azure's reddog.microsoft.com and internal.cloudapp.net, AWS's
// compute.internal, GCE's google.internal. They name no customer, and
// image names (mcr.microsoft.com), XML namespaces and endpoints
// (*.blob.core.windows.net) hold them everywhere. The longest first.
var platformDomains = []string{
	"internal.cloudapp.net", "cloudapp.azure.com", "compute.internal", "compute.amazonaws.com", "blob.core.windows.net",
	"microsoft.com", "microsoftonline.com", "windows.net", "windows.com", "azure.com", "azure.net", "azure.us", "cloudapp.net",
	"azurecr.io", "azmk8s.io", "azureedge.net", "trafficmanager.net", "amazonaws.com", "ec2.internal", "aws.dev",
	"googleapis.com", "google.internal", "gcr.io", "pkg.dev", "cluster.local", "k8s.io", "kubernetes.io", "docker.io",
	"docker.com", "github.com", "githubusercontent.com", "ghcr.io", "quay.io", "tigera.io", "projectcalico.org",
}

// platformDomain returns the platform domain d is or ends in.
func platformDomain(d string) (string, bool) {
	for _, p := range platformDomains {
		if d == p || strings.HasSuffix(d, "."+p) {
			return p, true
		}
	}
	return "", false
}

// publicSuffix: a domain under which names belong to many owners.
func publicSuffix(d string) bool {
	switch d {
	case "co.uk", "com.au", "co.jp", "com.br", "co.in", "ac.uk", "gov.uk", "org.uk":
		return true
	}
	return false
}

// Map is the mapping of names, sorted, for --write-map.
func (m *nameMapper) Map() [][2]string {
	var out [][2]string
	for k, v := range m.names {
		out = append(out, [2]string{k, v})
	}
	for k, v := range m.stated {
		out = append(out, [2]string{k, v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}
