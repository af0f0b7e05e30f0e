package anonymize

import (
	"bytes"
	"fmt"
	"strings"
)

// KindKeyword is the pseudonym prefix of --keywords: customer and project
// names that only free text carries (sos clean's --keywords).
const KindKeyword = "keyword"

// minKeywordLen: a keyword is replaced inside longer words too, so a
// shorter one would cut through everything.
const minKeywordLen = 3

type keyword struct {
	low       []byte
	pseudonym string
	// whole: replaced only as whole words (a person's or organization's
	// name a field states), not inside longer ones.
	whole bool
}

// AddKeyword registers a word to replace wherever it appears, in any case,
// as a word or inside one (ContosoWeb, contoso-prod), in text and file
// names. A keyword shorter than three characters, without a letter, or
// that the bundle's formats use (Overlay, proxy) is refused: replacing it
// would change what diag reads.
func (a *Anonymizer) AddKeyword(k string) error {
	k = strings.TrimSpace(k)
	low := strings.ToLower(k)
	switch {
	case len(k) < minKeywordLen:
		return fmt.Errorf("keyword %q: shorter than %d characters", k, minKeywordLen)
	case !strings.ContainsFunc(k, func(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 0x7f }):
		return fmt.Errorf("keyword %q: no letter", k)
	case vocabulary[low] || wellKnown[low]:
		return fmt.Errorf("keyword %q: a word the bundle's formats use; replacing it would change the analysis", k)
	case strings.ContainsAny(k, " \t\r\n\"'<>"):
		return fmt.Errorf("keyword %q: one word, without spaces or quotes", k)
	}
	for _, kw := range a.keywords {
		if string(kw.low) == low {
			return nil
		}
	}
	a.keywords = append(a.keywords, keyword{low: []byte(low), pseudonym: a.names.pseudonym(KindKeyword, low)})
	// The longest first: contoso-prod before contoso.
	for i := len(a.keywords) - 1; i > 0 && len(a.keywords[i].low) > len(a.keywords[i-1].low); i-- {
		a.keywords[i], a.keywords[i-1] = a.keywords[i-1], a.keywords[i]
	}
	return nil
}

// replaceKeywords replaces every keyword in b, case-insensitively; a match
// of hex digits inside an IPv6 address or MAC (a keyword "cafe") is not
// one.
func (a *Anonymizer) replaceKeywords(b []byte) []byte {
	if len(a.keywords) == 0 {
		return b
	}
	lower := bytes.ToLower(b)
	if len(lower) != len(b) { // a case mapping that changed lengths: match on b itself
		lower = b
	}
	var out []byte
	last := 0
	for i := 0; i < len(b); {
		n, p := a.keywordAt(lower, i)
		if n == 0 {
			i++
			continue
		}
		out = append(out, b[last:i]...)
		if isUpperWord(b[i : i+n]) {
			p = strings.ToUpper(p)
		}
		out = append(out, p...)
		i += n
		last = i
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

func (a *Anonymizer) keywordAt(lower []byte, i int) (int, string) {
	for _, kw := range a.keywords {
		if !bytes.HasPrefix(lower[i:], kw.low) {
			continue
		}
		n := len(kw.low)
		if kw.whole && (i > 0 && isAlnum(lower[i-1]) || i+n < len(lower) && isAlnum(lower[i+n])) {
			continue
		}
		if allHex(kw.low) && (i > 0 && (lower[i-1] == ':' || lower[i-1] == '-' || isHex(lower[i-1])) || i+n < len(lower) && (lower[i+n] == ':' || isHex(lower[i+n]))) {
			continue
		}
		return n, kw.pseudonym
	}
	return 0, ""
}

// maxPhrases bounds the names learnt from fields (each costs a look at
// every byte of the text).
const maxPhrases = 64

// addPhrase registers the name of a person or organization a field
// states (systeminfo's Registered Owner, net user's Full name), which may
// hold spaces: replaced as a whole, in any case, wherever it stands.
func (a *Anonymizer) addPhrase(kind, v string) {
	v = strings.Join(strings.Fields(v), " ")
	low := strings.ToLower(v)
	if len(v) < minKeywordLen || len(v) > 120 || a.phrases >= maxPhrases || vocabulary[low] || wellKnown[low] || notName[low] ||
		defaultOwners[low] || builtinUsers[low] || !strings.ContainsFunc(v, func(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 0x7f }) ||
		strings.ContainsAny(v, `"<>:=/{}[]\`) {
		return
	}
	for _, kw := range a.keywords {
		if string(kw.low) == low {
			return
		}
	}
	a.phrases++
	a.keywords = append(a.keywords, keyword{low: []byte(low), pseudonym: a.names.pseudonym(kind, low), whole: true})
	for i := len(a.keywords) - 1; i > 0 && len(a.keywords[i].low) > len(a.keywords[i-1].low); i-- {
		a.keywords[i], a.keywords[i-1] = a.keywords[i-1], a.keywords[i]
	}
}

// defaultOwners are what Windows and images put in Registered Owner and
// Organization when no one was asked: no one's.
var defaultOwners = map[string]bool{"windows user": true, "user": true, "n/a": true, "microsoft": true, "microsoft corporation": true,
	"owner": true, "admin": true, "azureuser": true, "organization": true, "default": true, "-": true}

func allHex(b []byte) bool {
	for _, c := range b {
		if !isHex(c) {
			return false
		}
	}
	return true
}

func isUpperWord(b []byte) bool {
	return bytes.Equal(bytes.ToUpper(b), b) && !bytes.Equal(bytes.ToLower(b), b)
}
