package anonymize

import (
	"net/netip"
	"sort"

	"github.com/wincni/diag/capture/payload"
)

// Anonymizer maps values with one key. It remembers what it mapped: not
// safe for concurrent use.
type Anonymizer struct {
	key   Key
	addrs *addrMapper
	macs  *macMapper
	names *nameMapper
	// extraPorts are VXLAN ports besides 4789 and 8472 (--vxlan-port).
	extraPorts map[uint16]bool
	walk       *payload.Walker // made with extraPorts at the first packet
	// keywords are --keywords, longest first.
	keywords []keyword
	// phrases counts the keywords learnt from fields (addPhrase).
	phrases int
	// pendingAccounts are DOMAIN\user pairs seen (see accounts.go).
	pendingAccounts map[[2]string]bool
}

// AddVXLANPort makes captures' UDP port p VXLAN, as capture decode's
// --vxlan-port does: its inner frames are rewritten too.
func (a *Anonymizer) AddVXLANPort(p uint16) {
	if a.extraPorts == nil {
		a.extraPorts = map[uint16]bool{}
	}
	a.extraPorts[p] = true
	a.walk = nil // the next packet's walk knows the port
}

// New returns an Anonymizer for key k.
func New(k Key) *Anonymizer {
	addrs := newAddrMapper(k)
	return &Anonymizer{key: k, addrs: addrs, macs: newMACMapper(k, addrs), names: newNameMapper(k)}
}

// AddName registers a name (a host, domain, namespace or object name) to
// be replaced wherever it appears as a whole word or dotted label.
func (a *Anonymizer) AddName(kind, name string) { a.names.Add(kind, name) }

// Addr maps one address.
func (a *Anonymizer) Addr(addr netip.Addr) netip.Addr { return a.addrs.Addr(addr) }

// String anonymizes a short text: a manifest value, a file name.
func (a *Anonymizer) String(s string) string { return string(a.Text([]byte(s))) }

// Mapping is what was replaced, original → pseudonym, for the owner of the
// original (--write-map): never written into the anonymized bundle.
type Mapping struct {
	KeyID string `json:"keyID"`
	// Addresses are addresses and networks (10.96.0.0/12).
	Addresses [][2]string `json:"addresses"`
	MACs      [][2]string `json:"macs"`
	Names     [][2]string `json:"names"`
	Keywords  [][2]string `json:"keywords"`
}

// Mapping returns what this Anonymizer replaced so far.
func (a *Anonymizer) Mapping() Mapping {
	m := Mapping{KeyID: a.key.ID(), Names: a.names.Map()}
	for _, kw := range a.keywords {
		m.Keywords = append(m.Keywords, [2]string{string(kw.low), kw.pseudonym})
	}
	for k, v := range a.addrs.seen {
		if k != v {
			m.Addresses = append(m.Addresses, [2]string{k.String(), v.String()})
		}
	}
	for k, v := range a.addrs.prefixes {
		if k != v {
			m.Addresses = append(m.Addresses, [2]string{k.String(), v.String()})
		}
	}
	for k, v := range a.macs.seen {
		if k != v {
			m.MACs = append(m.MACs, [2]string{macString(k), macString(v)})
		}
	}
	sort.Slice(m.Addresses, func(i, j int) bool { return m.Addresses[i][0] < m.Addresses[j][0] })
	sort.Slice(m.MACs, func(i, j int) bool { return m.MACs[i][0] < m.MACs[j][0] })
	return m
}

func macString(b [6]byte) string {
	const digits = "0123456789abcdef"
	out := make([]byte, 0, 17)
	for i, v := range b {
		if i > 0 {
			out = append(out, '-')
		}
		out = append(out, digits[v>>4], digits[v&15])
	}
	return string(out)
}

// Prefix maps one CIDR (see addrMapper.Prefix).
func (a *Anonymizer) Prefix(p netip.Prefix) netip.Prefix { return a.addrs.Prefix(p) }
