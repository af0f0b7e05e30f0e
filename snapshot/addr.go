package snapshot

import (
	"net/netip"
	"strings"
)

// NormalizeMAC returns a MAC in lower-case colon form. HNS keeps whatever the
// producer wrote: 00-15-5D-64-51-0E, 66-a5-cc-c1-86-97, c6:71:81:86:b2:77.
// Anything that is not six hex octets is returned lower-cased as is.
func NormalizeMAC(s string) string {
	s = strings.TrimSpace(s)
	var out [17]byte
	if NormalMAC(&out, s) {
		return string(out[:])
	}
	return normalizeMACForms(strings.ToLower(s))
}

// NormalMAC writes to out what NormalizeMAC returns for s in the usual
// forms, xx-xx-xx-xx-xx-xx and xx:xx:xx:xx:xx:xx, in one pass; false for
// any other s. A reader can so keep an endpoint's MAC with no string made
// in between: this runs for every endpoint.
func NormalMAC[T string | []byte](out *[17]byte, s T) bool {
	if len(s) != 17 {
		return false
	}
	for i := 0; i < 17; i++ {
		c := s[i]
		switch {
		case i%3 == 2:
			if c != '-' && c != ':' {
				return false
			}
			c = ':'
		case c >= 'A' && c <= 'F':
			c += 'a' - 'A'
		case c >= '0' && c <= '9' || c >= 'a' && c <= 'f':
		default:
			return false
		}
		out[i] = c
	}
	return true
}

// normalizeMACForms is NormalizeMAC for the other forms (Cisco's dots, no
// separators) and for what is not a MAC, which stays as it is.
func normalizeMACForms(s string) string {
	if s == "" {
		return ""
	}
	// '-' becomes ':' and '.' (Cisco's 0015.5d64.510e) goes; a byte loop,
	// not a strings.Replacer per call: this runs for every endpoint.
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '-':
			b = append(b, ':')
		case '.':
		default:
			b = append(b, c)
		}
	}
	t := string(b)
	if len(t) == 12 && !strings.Contains(t, ":") {
		var b strings.Builder
		for i := 0; i < 12; i += 2 {
			if i > 0 {
				b.WriteByte(':')
			}
			b.WriteString(t[i : i+2])
		}
		t = b.String()
	}
	parts := strings.Split(t, ":")
	if len(parts) != 6 {
		return s
	}
	for _, p := range parts {
		if len(p) != 2 || strings.Trim(p, "0123456789abcdef") != "" {
			return s
		}
	}
	return t
}

// GUIDPattern matches a GUID as HNS, VFP and Windows write it (any case, no
// braces); the readers that look for one build their expressions from it.
const GUIDPattern = `[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}`

// NormalizeGUID returns a GUID upper-case without braces; HNS objects refer
// to each other in mixed case.
func NormalizeGUID(s string) string {
	// Most IDs come normalized already (HNS's V2 JSON): kept as they are,
	// without a copy each.
	if s == "" || IsNormalGUID(s) {
		return s
	}
	return strings.ToUpper(strings.Trim(strings.TrimSpace(s), "{}"))
}

// IsNormalGUID: s is not empty, and NormalizeGUID leaves it as it is
// without a second look (an ID as HNS writes it). A reader holding the
// bytes of such an ID can keep or look them up without making a string.
func IsNormalGUID[T string | []byte](s T) bool {
	return len(s) > 0 && s[0] != '{' && s[len(s)-1] != '}' && plainGUID(s)
}

// plainGUID: every byte of s is printable ASCII and not lower-case (the
// bytes NormalizeGUID would change), tested a word at a time: it runs for
// every reference between HNS objects (150,000 in a large cluster's
// bundle).
func plainGUID[T string | []byte](s T) bool {
	const h, ones = 0x8080808080808080, 0x0101010101010101
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if w&h != 0 {
			return false // not ASCII
		}
		// With every byte below 0x80 no sum carries into the next byte;
		// a byte's high bit then says: at most ' ' (w+0x5f clear), 0x7f
		// (w+0x01 set), a-z (w+0x1f set, w+0x05 clear).
		bad := ^(w + ones*0x5f) | (w + ones*0x01) | (w+ones*0x1f)&^(w+ones*0x05)
		if bad&h != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c >= 0x7f || c >= 'a' && c <= 'z' {
			return false
		}
	}
	return true
}

// ParseAddr parses an IP address, tolerating a trailing prefix length or
// zone; the zero Addr means none.
func ParseAddr(s string) netip.Addr {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '/'); i >= 0 {
		s = s[:i]
	}
	if s == "" {
		return netip.Addr{} // without the error netip would make for it: most fields are empty
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}
	}
	return a.Unmap()
}

// ParseAddrBytes is ParseAddr of the text b, with no string made for a
// plain IPv4 address (an endpoint's: 20,000 in a large cluster's node).
func ParseAddrBytes(b []byte) netip.Addr {
	if a, ok := parseIPv4(b); ok {
		return a
	}
	return ParseAddr(string(b))
}

// parseIPv4 reads four decimal octets split by dots, as netip does (no
// leading zeros); false for anything else, which ParseAddr then reads.
func parseIPv4(b []byte) (netip.Addr, bool) {
	var ip [4]byte
	field, digits, val := 0, 0, 0
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			if digits == 1 && val == 0 {
				return netip.Addr{}, false
			}
			val = val*10 + int(c-'0')
			digits++
			if val > 255 {
				return netip.Addr{}, false
			}
		case c == '.' && digits > 0 && field < 3:
			ip[field] = byte(val)
			field, digits, val = field+1, 0, 0
		default:
			return netip.Addr{}, false
		}
	}
	if field != 3 || digits == 0 {
		return netip.Addr{}, false
	}
	ip[3] = byte(val)
	return netip.AddrFrom4(ip), true
}

// ParsePrefix parses a CIDR and masks it; the zero Prefix means none.
func ParsePrefix(s string) netip.Prefix {
	s = strings.TrimSpace(s)
	if s == "" {
		return netip.Prefix{}
	}
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return netip.Prefix{}
	}
	return p.Masked()
}

// IsAPIPA reports a link-local IPv4 address (169.254.0.0/16): what Windows
// assigns when DHCP failed.
func IsAPIPA(a netip.Addr) bool {
	return a.Is4() && a.IsLinkLocalUnicast()
}

// VagrantNATAddr is the address VirtualBox's NAT adapter gives every Vagrant
// VM; peers can never reach a VTEP on it.
var VagrantNATAddr = netip.MustParseAddr("10.0.2.15")

// VagrantNATPrefix is VirtualBox's default NAT network.
var VagrantNATPrefix = netip.MustParsePrefix("10.0.2.0/24")
