package redact

import (
	"bytes"
	"math"
	"regexp"
	"sort"
	"strings"
)

// Secrets that no key names: tokens that say what they are by their shape,
// and a random-looking word right after a secret word in prose ("the
// password is Xk92#p", "token Xy7...").

var knownToken, providerToken, slackHook, storageKey, guidLike, digestLike *regexp.Regexp

func compileTokens() {
	knownToken = regexp.MustCompile(`\b(?:dckr_pat_[A-Za-z0-9_\-]{20,}|sk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{32,}|SG\.[A-Za-z0-9_\-]{16,32}\.[A-Za-z0-9_\-]{16,64}|ya29\.[A-Za-z0-9_\-]{20,}|hv[sbr]\.[A-Za-z0-9_\-]{24,}|pypi-AgE[A-Za-z0-9_\-]{50,}|shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}|glrt-[A-Za-z0-9_\-]{20,}|[A-Za-z0-9_~.\-]{3}[0-9]Q~[A-Za-z0-9_~.\-]{31,34})`)
	// More providers' shapes, as gitleaks' provider rules know them: each
	// starts with a prefix no word has.
	providerToken = regexp.MustCompile(`\b(?:xapp-[0-9]-[A-Za-z0-9]+-[0-9]+-[A-Za-z0-9]+|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,400}={0,3}|gl(?:cbt|dt|ffct|ft|imt|ptt|soat|agent)-[0-9A-Za-z_\-]{20,}|do[opr]_v1_[a-f0-9]{64}|pscale_(?:pw|tkn|oauth)_[\w=.\-]{32,64}|PMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}|pnu_[A-Za-z0-9]{36}|pul-[a-f0-9]{40}|rubygems_[a-f0-9]{48}|xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}|sntryu_[a-f0-9]{64}|HRKU-AA[0-9A-Za-z_\-]{58}|AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}|(?:sk|rk)_(?:test|prod)_[A-Za-z0-9]{10,99}|sq0csp-[\w\-]{43}|shippo_(?:live|test)_[a-fA-F0-9]{40})`)
	slackHook = regexp.MustCompile(`(hooks\.slack\.com/(?:services|workflows|triggers)/)([A-Za-z0-9+/_\-]{16,})`)
	// An Azure storage account key: 64 bytes in base64, alone.
	storageKey = regexp.MustCompile(`(?:^|[^A-Za-z0-9+/=])([A-Za-z0-9+/]{86}==)(?:$|[^A-Za-z0-9+/=])`)
	guidLike = regexp.MustCompile(`^\{?[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\}?$`)
	digestLike = regexp.MustCompile(`^(?:(?i:sha1|sha256|sha384|sha512|md5):)?[0-9a-fA-F]{32,}$`)
}

// tokens redacts the shaped tokens and the random words after secret words.
func (w *Writer) tokens(c, lower []byte) []byte {
	if hasAny(lower, "dckr_pat_", "sk-", "sg.", "ya29.", "hvs.", "hvb.", "hvr.", "pypi-", "shp", "glrt-", "q~") {
		c = w.sub(c, knownToken, w.group(0, KindToken))
	}
	if providerCandidate(lower) {
		c = w.sub(c, providerToken, w.group(0, KindToken))
	}
	if has(lower, "hooks.slack.com/") {
		c = w.sub(c, slackHook, w.group(2, KindToken))
	}
	if len(c) >= 88 && has(lower, "==") {
		c = w.sub(c, storageKey, w.group(1, KindCloudCred))
	}
	if hasAny(lower, "pass", "pwd", "secret", "token", "key", "credential") {
		c = w.secretNear(c)
	}
	if bytes.IndexByte(c, '.') >= 0 {
		c = w.bootstrapTokens(c)
	}
	return w.productKeys(c)
}

// bootstrapTokens redacts kubeadm bootstrap tokens by their shape, six
// and sixteen of [a-z0-9] joined by a dot, wherever they stand ("kubeadm
// token list"'s TOKEN column, "kubeadm token create" alone on a line):
// the sixteen after the dot are the secret; the six before are the
// token's public ID (the Secret bootstrap-token-<id> names it). A
// digit and a letter among them tell a token from a name or a number.
func (w *Writer) bootstrapTokens(c []byte) []byte {
	var out []byte
	last := 0
	for off := 0; off < len(c); {
		i := bytes.IndexByte(c[off:], '.')
		if i < 0 {
			break
		}
		i += off
		off = i + 1
		if i < 6 || i+17 > len(c) || i > 6 && tokenEdge(c[i-7]) || i+17 < len(c) && tokenEdge(c[i+17]) {
			continue
		}
		digit, letter, ok := false, false, true
		for k := i - 6; k < i+17 && ok; k++ {
			switch b := c[k]; {
			case k == i:
			case b >= '0' && b <= '9':
				digit = true
			case b >= 'a' && b <= 'z':
				letter = letter || k > i
			default:
				ok = false
			}
		}
		if !ok || !digit || !letter {
			continue
		}
		out = append(out, c[last:i+1]...)
		out = append(out, Placeholder...)
		last = i + 17
		off = last
		w.count(KindToken)
	}
	if out == nil {
		return c
	}
	return append(out, c[last:]...)
}

// tokenEdge: a byte that would make a bootstrap token's shape part of a
// longer word, name or number.
func tokenEdge(b byte) bool {
	return isKeyChar(b) || b == '/' || b == '\\' || b == '@' || b == ':'
}

// providerMarked are the prefixes of providerToken up to their first _
// or -. A line is asked for them at each _ and - it has (found by
// IndexByte, which skips the rest of the line at machine speed), and only
// where the word before starts with a letter one of them starts with:
// thirty searches of every line, or a look at every byte, cost a fifth of
// the redactor's time. (gitleaks' shapes whose prefix has neither _ nor -,
// Databricks, Atlassian, Artifactory, Doppler, Bedrock and Alibaba keys,
// are left out: six more searches of every line cost 5% for tokens no
// Windows node's logs were seen to hold.)
var providerMarked = map[string]bool{"xapp-": true, "glsa_": true, "glc_": true, "glcbt-": true, "gldt-": true,
	"glffct-": true, "glft-": true, "glimt-": true, "glptt-": true, "glsoat-": true, "glagent-": true, "dop_": true,
	"doo_": true, "dor_": true, "pscale_": true, "pmak-": true, "pnu_": true, "pul-": true, "rubygems_": true,
	"xkeysib-": true, "sntryu_": true, "hrku-": true, "age-": true, "sk_": true, "rk_": true, "sq0csp-": true, "shippo_": true}

// providerFirst: the first letters of providerMarked.
var providerFirst = func() (t [256]bool) {
	for p := range providerMarked {
		t[p[0]] = true
	}
	return
}()

// providerCandidate: a word of lower starts with a prefix of providerToken.
func providerCandidate(lower []byte) bool {
	for _, sep := range []byte{'_', '-'} {
		for off := 0; ; {
			i := bytes.IndexByte(lower[off:], sep)
			if i < 0 {
				break
			}
			i += off
			off = i + 1
			s := i
			for s > 0 && i-s < 9 && isAlnumByte(lower[s-1]) {
				s--
			}
			if providerFirst[lower[s]] && (s == 0 || !isWordByte(lower[s-1])) && providerMarked[string(lower[s:i+1])] {
				return true
			}
		}
	}
	return false
}

func isWordByte(b byte) bool { return isAlnumByte(b) || b == '_' }

// productKeyChars are the characters of a Windows product key (N only
// since Windows 8): no vowels, no 0, 1, 5, L, S or Z.
const productKeyChars = "BCDFGHJKMNPQRTVWXY2346789"

var isProductKeyChar = func() (t [256]bool) {
	for i := 0; i < len(productKeyChars); i++ {
		t[productKeyChars[i]] = true
	}
	return
}()

// productKeys redacts Windows product keys (five groups of five,
// XXXXX-XXXXX-XXXXX-XXXXX-XXXXX, of their 25 characters, letters and
// digits both) wherever they stand: unattend.xml's <ProductKey> and
// <Key>, slmgr /ipk, DISM /Set-ProductKey:, a key=value file. A GUID
// (8-4-4-4-12) or a word of other letters is not one.
func (w *Writer) productKeys(c []byte) []byte {
	var out []byte
	last := 0
	for off := 0; ; {
		i := bytes.IndexByte(c[off:], '-')
		if i < 0 {
			break
		}
		s := off + i - 5 // the key's start, if this is its first dash
		off += i + 1
		if s < last || s < 0 || s > 0 && (isKeyChar(c[s-1]) || c[s-1] == '-') || len(c)-s < 29 {
			continue
		}
		e := s + 29
		if e < len(c) && (isKeyChar(c[e]) || c[e] == '-') || !productKey(c[s:e]) {
			continue
		}
		out = append(out, c[last:s]...)
		out = append(out, Placeholder...)
		last = e
		off = e
		w.count(KindSecret)
	}
	if last == 0 {
		return c
	}
	return append(out, c[last:]...)
}

func productKey(k []byte) bool {
	letter, digit := false, false
	for i, b := range k {
		if i%6 == 5 {
			if b != '-' {
				return false
			}
			continue
		}
		if !isProductKeyChar[b] {
			return false
		}
		if b <= '9' {
			digit = true
		} else {
			letter = true
		}
	}
	return letter && digit
}

// nearWords are the secret words a random word may follow, and its kind.
var nearWords = []struct {
	word, kind string
}{
	{"password", KindPassword}, {"passwd", KindPassword}, {"passphrase", KindPassword}, {"pwd", KindPassword},
	{"secret", KindSecret}, {"apikey", KindSecret}, {"api key", KindSecret}, {"api-key", KindSecret}, {"api_key", KindSecret},
	{"access key", KindCloudCred}, {"accesskey", KindCloudCred}, {"token", KindToken}, {"credentials", KindSecret}, {"credential", KindSecret},
}

// linkWords may stand between a secret word and its value: "the password
// is x", "token set to x".
var linkWords = [][]byte{[]byte("is "), []byte("was "), []byte("to "), []byte("set to "), []byte("= "), []byte(": ")}

// secretNear redacts a random-looking word right after a secret word that
// ends a word ("password is Xk92#p", "token: Xy7..."), found by hand: a
// regular expression with these alternations cost a fifth of the time.
func (w *Writer) secretNear(c []byte) []byte {
	lower := lowerASCII(c)
	type span struct {
		s, e int
		kind string
	}
	var spans []span
	for _, nw := range nearWords {
		word := []byte(nw.word)
		for off := 0; off < len(lower); {
			i := bytes.Index(lower[off:], word)
			if i < 0 {
				break
			}
			i += off
			off = i + len(word)
			if i > 0 && isAlnumByte(lower[i-1]) || off < len(lower) && isAlnumByte(lower[off]) {
				continue
			}
			if s, e := nearValue(c, off); s >= 0 && randomWord(c[s:e]) && secretValue("", "", c[s:e]) {
				spans = append(spans, span{s, e, nw.kind})
			}
		}
	}
	if spans == nil {
		return c
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].s < spans[j].s })
	var out []byte
	last := 0
	for _, sp := range spans {
		if sp.s < last {
			continue
		}
		w.count(sp.kind)
		out = append(out, c[last:sp.s]...)
		out = append(out, Placeholder...)
		last = sp.e
	}
	return append(out, c[last:]...)
}

// nearValue finds the word after a secret word ending at j: past spaces,
// one link word, a ':' or '=' and an opening quote. -1 when none.
func nearValue(c []byte, j int) (int, int) {
	end := j
	skip := func() {
		for j < len(c) && (c[j] == ' ' || c[j] == '\t') {
			j++
		}
	}
	skip()
	if j < len(c) && (c[j] == ':' || c[j] == '=') {
		j++
		skip()
	} else {
		low := lowerASCII(c[j:min(len(c), j+8)])
		linked := false
		for _, l := range linkWords {
			if bytes.HasPrefix(low, l) {
				j += len(l)
				skip()
				linked = true
				break
			}
		}
		if !linked {
			j = pastFiller(c, j)
		}
	}
	if j < len(c) && (c[j] == '"' || c[j] == '\'') {
		if j == end {
			return -1, -1 // the quote closes the word's own string ("client.secret">)
		}
		j++
	}
	e := j
	for e < len(c) && !isSpace(c[e]) && strings.IndexByte(`"'<>,;`, c[e]) < 0 {
		e++
	}
	if e-j < 8 {
		return -1, -1
	}
	return j, e
}

// maxFiller is how many words may stand between a secret word and the
// word that links it to its value: "password for kadmin: x", "password
// for svc_backup set to x", "password changed to x".
const maxFiller = 4

// maxFillerWord bounds a filler word (a user or host name).
const maxFillerWord = 64

// pastFiller returns where the value starts after a few plain words that
// end with a colon or with a link word ("to", "is", "was"), or j itself
// when the words do not end so (prose that states no value).
func pastFiller(c []byte, j int) int {
	k := j
	for n := 0; n < maxFiller && k < len(c); n++ {
		e := k
		for e < len(c) && !isSpace(c[e]) && e-k <= maxFillerWord {
			e++
		}
		if e-k > maxFillerWord {
			return j // no word of prose: a long line without spaces stays linear
		}
		word := c[k:e]
		colon := len(word) > 1 && word[len(word)-1] == ':'
		if colon {
			word = word[:len(word)-1]
		}
		if len(word) == 0 || !plainWord(word) {
			return j
		}
		low := lowerASCII(word)
		link := string(low) == "to" || string(low) == "is" || string(low) == "was"
		for e < len(c) && (c[e] == ' ' || c[e] == '\t') {
			e++
		}
		if colon || link {
			return e
		}
		k = e
	}
	return j
}

// plainWord: letters, digits and the marks of a user or host name, quoted
// or in parentheses ('svc_backup', (expires in 24h)).
func plainWord(w []byte) bool {
	for _, b := range w {
		if !isAlnumByte(b) && strings.IndexByte(`_-.\@'"()`, b) < 0 {
			return false
		}
	}
	return true
}

func isAlnumByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

// randomWord: a word no one writes in prose: upper and lower case letters
// and digits mixed, or long and of high entropy; not an
// address, a GUID, a digest, a path or a URL, which are evidence.
func randomWord(v []byte) bool {
	if len(v) < 8 || pathValue.Match(v) || guidLike.Match(v) || digestLike.Match(v) || portLike.Match(v) {
		return false
	}
	for i := 0; i+2 < len(v); i++ {
		if v[i] == ':' && v[i+1] == '/' && v[i+2] == '/' {
			return false
		}
	}
	var lower, upper, digit int
	for _, b := range v {
		switch {
		case b >= 'a' && b <= 'z':
			lower = 1
		case b >= 'A' && b <= 'Z':
			upper = 1
		case b >= '0' && b <= '9':
			digit = 1
		}
	}
	// Names and IDs are one case (coredns-5d78c9869d-x7k2p, 6595b641...):
	// a secret word's value mixes cases and digits, or is long and dense.
	if upper+lower+digit == 3 {
		return true
	}
	return len(v) >= 32 && digit == 1 && entropy(v) >= 4.2
}

// entropy is the Shannon entropy of v in bits per byte.
func entropy(v []byte) float64 {
	var n [256]int
	for _, b := range v {
		n[b]++
	}
	h := 0.0
	for _, k := range n {
		if k > 0 {
			p := float64(k) / float64(len(v))
			h -= p * math.Log2(p)
		}
	}
	return h
}

func lowerASCII(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}
