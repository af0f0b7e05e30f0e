package redact

import (
	"bytes"
	"io"
	"sort"
)

// Placeholder replaces every removed value.
const Placeholder = "REDACTED"

// Kinds of secret, as recorded in the manifest.
const (
	KindPrivateKey = "private-key"      // PEM/PGP/PuTTY/OpenSSH private keys, kubeconfig client-key-data, tls.key
	KindToken      = "token"            // bearer tokens, kubeconfig/service account tokens, JWTs, cookies, GitHub-style tokens
	KindPassword   = "password"         // password keys and flags, URL user:password@, registry auth, Basic credentials
	KindSecret     = "secret"           // client secrets, API keys, other credentials
	KindCloudCred  = "cloud-credential" // AWS keys, Azure AccountKey, SharedAccessKey and SAS signatures
	KindUsername   = "username"         // the user half of a /u:USER /p:PASS pair
)

// MaxLine is the longest line handled whole. A longer line (a one-line JSON
// document of hundreds of megabytes) is handled in pieces of about this
// size, cut after a comma or a space where there is one.
const MaxLine = 1 << 20

// maxLine is MaxLine; tests lower it to try every cut position quickly.
var maxLine = MaxLine

// maxRun bounds the base64 lines held back in case they end in
// "-----END ... PRIVATE KEY-----" (a key whose BEGIN line was cut off).
const maxRun = 256 << 10

// Count is how many values of one kind were removed.
type Count struct {
	Kind  string
	Count int
}

// Text returns data with secrets replaced by Placeholder and the counts of
// what was removed, sorted by kind.
func Text(data []byte) ([]byte, []Count) {
	var out bytes.Buffer
	out.Grow(len(data) + 64)
	w := NewWriter(&out)
	w.Write(data) // a bytes.Buffer does not fail
	w.Close()
	return out.Bytes(), w.Counts()
}

// Copy redacts src into dst, streaming, and returns what was removed.
func Copy(dst io.Writer, src io.Reader) ([]Count, error) {
	w := NewWriter(dst)
	buf := make([]byte, 64<<10)
	if _, err := io.CopyBuffer(w, src, buf); err != nil {
		return w.Counts(), err
	}
	err := w.Close()
	return w.Counts(), err
}

// Writer redacts what is written to it, line by line, into another writer.
// Close flushes the last line; it does not close the destination.
type Writer struct {
	dst    io.Writer
	err    error
	buf    []byte // the current, unfinished line
	out    []byte // redacted output not yet written to dst
	counts map[string]int
	lower  []byte // scratch: the current line in lower case
	closed bool

	st       state
	indent   int      // stBlock: the key's column; stPEM: the body's indentation
	emitted  bool     // stBlock/stPEM: the placeholder line is out
	blanks   []byte   // stBlock: blank lines held until the block ends or goes on
	left     int      // stPutty: lines still to drop
	kind     string   // stBlock: the kind the block is counted as
	envKind  string   // the previous line named a secret env variable
	run      [][]byte // held-back base64 lines, with their terminators
	runBytes int
	xmlClose []byte // inside a secret XML element: its closing tag ("</Password")
	xmlKind  string
	started  bool          // the first line was seen
	pend     pending       // what this line's flag leaves for the next line
	archLeft int           // lines after an archiver's name that may be its arguments
	data     secretData    // a Kubernetes data or stringData block
	kind8    docKind       // the kind the current document stated
	next     nextValue     // a secret key's value still to come on the next lines
	wrapCol  int           // the column of a secret value the last line ended with
	csv      csvTable      // the header of a CSV table being read
	kvIndent int           // 1 + the indentation of a Key Vault secret's members being printed; 0: none
	held     []heldLiteral // literal assignments in out, held back for a later ConvertTo-SecureString
	lineNo   int           // lines seen
}

var utf8BOM = []byte("\ufeff")

type state int

const (
	stNone   state = iota
	stPEM          // inside a private key block, after its BEGIN line
	stBlock        // inside a YAML block scalar under a secret key
	stPutty        // inside PuTTY Private-Lines
	stBase64       // lines continuing a base64-encoded private key
)

// NewWriter returns a Writer that writes the redacted text to dst.
func NewWriter(dst io.Writer) *Writer {
	compiled.Do(compileRules)
	return &Writer{dst: dst, counts: map[string]int{}}
}

// Write redacts p. Complete lines are handled at once; an unfinished line
// waits for the next Write or Close.
func (w *Writer) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			w.buf = append(w.buf, p...)
			// Cut only with cutContext bytes after the cut in hand, so
			// that the cut can be checked against what follows it.
			for len(w.buf) > maxLine+cutContext() {
				cut := safeCut(w.buf, maxLine)
				w.line(w.buf[:cut], nil)
				w.buf = append(w.buf[:0], w.buf[cut:]...)
			}
			break
		}
		if len(w.buf) > 0 {
			w.buf = append(w.buf, p[:i+1]...)
			w.terminated(w.buf)
			w.buf = w.buf[:0]
		} else {
			w.terminated(p[:i+1])
		}
		p = p[i+1:]
		if len(w.out) >= 64<<10 {
			w.flush()
		}
	}
	w.flush()
	if w.err != nil {
		return n, w.err
	}
	return n, nil
}

// Close handles the last line (one without a newline) and what is still
// held back, and writes everything out.
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	w.closed = true
	if len(w.buf) > 0 {
		w.line(w.buf, nil)
		w.buf = nil
	}
	if w.data.holding {
		w.release(false) // the document never said it is a Secret
	}
	w.endState()
	w.flushRun()
	w.flush()
	return w.err
}

// Counts returns what was removed so far, sorted by kind.
func (w *Writer) Counts() []Count {
	list := make([]Count, 0, len(w.counts))
	for k, n := range w.counts {
		list = append(list, Count{k, n})
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Kind < list[j].Kind })
	return list
}

func (w *Writer) flush() {
	if len(w.out) == 0 || w.err != nil {
		w.out, w.held = w.out[:0], nil
		return
	}
	from := len(w.out)
	if len(w.held) > 0 {
		from = w.heldFrom()
	}
	_, w.err = w.dst.Write(w.out[:from])
	n := copy(w.out, w.out[from:])
	w.out = w.out[:n]
	for i := range w.held {
		w.held[i].s -= from
		w.held[i].e -= from
	}
}

// terminated splits a line ending in "\n" (or "\r\n") into content and
// terminator.
func (w *Writer) terminated(l []byte) {
	end := len(l) - 1
	if end > 0 && l[end-1] == '\r' {
		end--
	}
	w.line(l[:end], l[end:])
}

// cutContext is how much of a line on either side of a cut is looked at
// to tell whether the cut separates something the rules read together (a
// key and its value, a command and its switch).
func cutContext() int { return min(8<<10, maxLine/4) }

// maxCutTries bounds the cut points tried on one piece.
const maxCutTries = 32

// safeCut picks where to cut an over-long line b within its first limit
// bytes: after a comma or whitespace in the last 64 KiB before limit, the
// last such point where cutting changes nothing. A cut is checked by
// redacting cutContext bytes either side of it, together and apart: the
// same result means no key, switch or header on one side names a value
// on the other (a cut between "password": and its value, or Bearer and
// its token, would let the value through). Where no point within reach
// is safe, the last one is taken. Without a separator, the cut is at
// limit (never inside a UTF-8 sequence).
func safeCut(b []byte, limit int) int {
	first, tries := -1, 0
	for i := limit - 1; i >= limit-(64<<10) && i > 0; i-- {
		if !cutSep(b[i]) {
			continue
		}
		if first < 0 {
			first = i + 1
		}
		if cutIsSafe(b, i+1) {
			return i + 1
		}
		if tries++; tries == maxCutTries {
			break
		}
	}
	if first >= 0 {
		return first
	}
	return runeCut(b[:limit])
}

func cutSep(c byte) bool {
	switch c {
	case ',', ' ', '\t', ';', '}', ']':
		return true
	}
	return false
}

// cutIsSafe says whether redacting the text around cut in two pieces
// gives what redacting it whole does.
func cutIsSafe(b []byte, cut int) bool {
	n := cutContext()
	lo, hi := max(0, cut-n), min(len(b), cut+n)
	whole, _ := Text(b[lo:hi])
	left, _ := Text(b[lo:cut])
	if !bytes.HasPrefix(whole, left) {
		return false
	}
	right, _ := Text(b[cut:hi])
	return bytes.Equal(whole[len(left):], right)
}

// runeCut cuts b at its end, or before a UTF-8 sequence the end splits.
func runeCut(b []byte) int {
	i := len(b)
	for i > 1 && b[i-1]&0xC0 == 0x80 {
		i--
	}
	if i > 1 && b[i-1] >= 0xC0 {
		i--
	}
	return i
}

func (w *Writer) count(kind string) { w.counts[kind]++ }

func (w *Writer) emit(parts ...[]byte) {
	for _, p := range parts {
		w.out = append(w.out, p...)
	}
}

// line handles one line: content c without its terminator term (nil for
// the last line of the input or a piece of an over-long line).
func (w *Writer) line(c, term []byte) {
	w.lineNo++
	if len(w.held) > 0 {
		w.expireHeld()
	}
	if !w.started {
		// A UTF-8 byte order mark is no part of the first line's key.
		w.started = true
		if bytes.HasPrefix(c, utf8BOM) {
			w.emit(utf8BOM)
			c = c[len(utf8BOM):]
		}
	}
	if w.data.holding && w.holdLine(c, term) {
		return
	}
	switch w.st {
	case stPEM:
		if i := endMarker(c); i >= 0 {
			w.pemBody(c[:i])
			w.st = stNone
			if len(bytes.TrimSpace(c[:i])) > 0 { // body text before END on its line
				c = append(append([]byte(nil), leading(c)...), c[i:]...)
			}
			w.plain(c, term) // the END line itself
			return
		}
		if pemBodyLine(c) {
			if !w.emitted && len(bytes.TrimSpace(c)) > 0 {
				w.pemBody(c)
			}
			return
		}
		// The key ended without its END line (cut by a log tail): the
		// line is something else.
		w.endState()
	case stPutty:
		if w.left > 0 && base64Line(c) {
			if !w.emitted {
				w.pemBody(c)
			}
			w.left--
			if w.left == 0 {
				w.st = stNone
			}
			return
		}
		w.st = stNone
	case stBase64:
		if base64Line(c) && len(bytes.TrimSpace(c)) > 0 {
			return
		}
		w.st = stNone
	case stBlock:
		if len(bytes.TrimSpace(c)) == 0 {
			w.blanks = append(w.blanks, c...)
			w.blanks = append(w.blanks, term...)
			if len(w.blanks) > 4096 { // blank lines carry nothing: keep it bounded
				w.blanks = w.blanks[:0]
			}
			return
		}
		if indentOf(c) > w.indent {
			w.blanks = w.blanks[:0]
			if !w.emitted {
				w.emitted = true
				in := leading(c)
				w.emit(in, []byte(Placeholder), term)
				w.count(w.kind)
			}
			return
		}
		w.endState()
	}
	w.lineNone(c, term)
}

// endState ends a multi-line construct at a line that does not belong to
// it, or at the end of the input.
func (w *Writer) endState() {
	switch w.st {
	case stBlock:
		w.emit(w.blanks)
		w.blanks = w.blanks[:0]
	}
	w.st = stNone
}

// pemBody emits the placeholder for a key body, once per block, at the
// body's indentation, and counts the key.
func (w *Writer) pemBody(first []byte) {
	if w.emitted {
		return
	}
	w.emitted = true
	w.emit(leading(first), []byte(Placeholder), []byte("\n"))
	if !isPlaceholderRun(first) {
		w.count(KindPrivateKey)
	}
}

// lineNone handles a line outside any multi-line construct: base64 lines
// are held back (they may be a key body whose BEGIN line is gone) until a
// line shows what they were.
func (w *Writer) lineNone(c, term []byte) {
	if runLine(c) {
		l := make([]byte, 0, len(c)+len(term))
		l = append(append(l, c...), term...)
		w.run = append(w.run, l)
		w.runBytes += len(l)
		for w.runBytes > maxRun && len(w.run) > 0 {
			w.plainTerminated(w.run[0])
			w.runBytes -= len(w.run[0])
			w.run = w.run[1:]
		}
		return
	}
	if len(w.run) > 0 {
		if i := endMarker(c); i >= 0 && len(bytes.TrimSpace(c[:i])) == 0 && w.runHasBody() {
			first := w.run[0]
			w.run, w.runBytes = w.run[:0], 0
			if isPlaceholderRun(first) {
				w.emit(first)
			} else {
				w.emit(leading(first), []byte(Placeholder), []byte("\n"))
				w.count(KindPrivateKey)
			}
			w.plain(c, term)
			return
		}
		w.flushRun()
	}
	w.plain(c, term)
}

func (w *Writer) runHasBody() bool {
	for _, l := range w.run {
		if len(bytes.TrimSpace(l)) > 0 {
			return true
		}
	}
	return false
}

func isPlaceholderRun(l []byte) bool {
	return bytes.Equal(bytes.TrimSpace(l), []byte(Placeholder))
}

// flushRun handles the held-back lines as ordinary lines.
func (w *Writer) flushRun() {
	run := w.run
	w.run, w.runBytes = nil, 0
	for _, l := range run {
		w.plainTerminated(l)
	}
}

func (w *Writer) plainTerminated(l []byte) {
	end := len(l)
	if end > 0 && l[end-1] == '\n' {
		end--
		if end > 0 && l[end-1] == '\r' {
			end--
		}
	}
	w.plain(l[:end], l[end:])
}

// leading returns the spaces and tabs that start c.
func leading(c []byte) []byte {
	i := 0
	for i < len(c) && (c[i] == ' ' || c[i] == '\t') {
		i++
	}
	return c[:i]
}

func indentOf(c []byte) int { return len(leading(c)) }

// base64Line: only base64 characters, with optional indentation.
func base64Line(c []byte) bool {
	t := bytes.TrimSpace(c)
	if len(t) == 0 {
		return false
	}
	for _, b := range t {
		if !isB64(b) {
			return false
		}
	}
	return true
}

// runLine: a line that may belong to a key body whose BEGIN was cut: base64
// of some length, a PEM header (Proc-Type, DEK-Info), or blank within a run.
func runLine(c []byte) bool {
	t := bytes.TrimSpace(c)
	if len(t) == 0 {
		return false
	}
	if base64Line(t) {
		return len(t) >= 4
	}
	return bytes.HasPrefix(t, []byte("Proc-Type: ")) || bytes.HasPrefix(t, []byte("DEK-Info: "))
}

// pemBodyLine: a line inside a key block: base64, blank, or an armor
// header ("Proc-Type: 4,ENCRYPTED", "Version: GnuPG", "Comment: ...").
func pemBodyLine(c []byte) bool {
	t := bytes.TrimSpace(c)
	if len(t) == 0 || base64Line(t) {
		return true
	}
	i := bytes.Index(t, []byte(": "))
	if i <= 0 || i > 40 {
		return false
	}
	for _, b := range t[:i] {
		if !(b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '-') {
			return false
		}
	}
	return true
}

func isB64(b byte) bool {
	return b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '+' || b == '/' || b == '='
}
