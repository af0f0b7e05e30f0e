package formats

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// unquotePaste removes Markdown quotes and the indentation of indented
// blocks, and says what it removed so the report can tell the reader; text
// that has neither comes back unchanged.
func unquotePaste(text string) (string, string) {
	lines := strings.Split(text, "\n")
	if kept := dropFences(slices.Clone(lines)); len(kept) != len(lines) {
		lines = kept
		text = strings.Join(lines, "\n")
	}
	var how []string
	quoted := 0
	for _, l := range lines {
		if strings.HasPrefix(strings.TrimLeft(l, " "), ">") {
			quoted++
		}
	}
	// Console output never starts a line with '>' (PowerShell's own
	// continuation prompt is ">>", which stays recognisable), so two
	// quoted lines make a quote.
	if quoted >= 2 {
		for i, l := range lines {
			t := strings.TrimLeft(l, " ")
			if strings.HasPrefix(t, ">") {
				t = t[1:]
				// Nested quotes (a reply to a reply).
				for strings.HasPrefix(t, ">") || strings.HasPrefix(t, " >") {
					t = strings.TrimPrefix(strings.TrimPrefix(t, " "), ">")
				}
				lines[i] = strings.TrimPrefix(t, " ")
			}
		}
		how = append(how, "Markdown quote ('> ') removed")
		text = strings.Join(lines, "\n")
	}
	if out, n := unindentPaste(text); n > 0 {
		text = out
		how = append(how, "common indentation ("+strconv.Itoa(n)+" spaces, a Markdown code block or a mail quote) removed from every line")
	} else if out, blocks := unindentBlocks(text); blocks > 0 {
		text = out
		how = append(how, strconv.Itoa(blocks)+" indented block(s) (Markdown code) unindented")
	}
	return text, strings.Join(how, "; ")
}

// unindentBlocks removes the indentation of each block of non-blank lines
// that starts after a blank line and is indented four spaces or more as a
// whole: a Markdown code block among the operator's prose. Console output's
// own indented lines (Format-List continuations, ipconfig's keys) share a
// block with an unindented line, or are indented less.
func unindentBlocks(text string) (string, int) {
	lines := strings.Split(text, "\n")
	blocks := 0
	for i := 0; i < len(lines); {
		if strings.TrimSpace(lines[i]) == "" {
			i++
			continue
		}
		j, common := i, -1
		for ; j < len(lines) && strings.TrimSpace(lines[j]) != ""; j++ {
			l := strings.ReplaceAll(lines[j], "\t", "    ")
			n := len(l) - len(strings.TrimLeft(l, " "))
			if common < 0 || n < common {
				common = n
			}
		}
		// JSON's own indented lines (ConvertTo-Json prints blank lines
		// inside arrays) are not a code block.
		if common >= 4 && !strings.ContainsAny(strings.TrimSpace(lines[i])[:1], "{}[]\",") {
			for k := i; k < j; k++ {
				lines[k] = strings.ReplaceAll(lines[k], "\t", "    ")[common:]
			}
			blocks++
		}
		i = j
	}
	return strings.Join(lines, "\n"), blocks
}

// dropFences removes Markdown code fence lines (```powershell, ~~~) that
// come along when a paste is copied from a rendered ticket's source.
func dropFences(lines []string) []string {
	out := lines[:0]
	for _, l := range lines {
		t := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "> "))
		if (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")) && !strings.ContainsAny(t[3:], " :") {
			continue
		}
		out = append(out, l)
	}
	return out
}

// unindentPaste removes the indentation all non-empty lines share (tabs
// count as four spaces, as Markdown has it) and returns how much.
func unindentPaste(text string) (string, int) {
	lines := strings.Split(text, "\n")
	common := -1
	for i, l := range lines {
		if strings.Contains(l, "\t") {
			lines[i] = strings.ReplaceAll(l, "\t", "    ")
			l = lines[i]
		}
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, " "))
		if common < 0 || n < common {
			common = n
		}
	}
	if common <= 0 {
		return text, 0
	}
	for i, l := range lines {
		if len(l) >= common {
			lines[i] = l[common:]
		} else {
			lines[i] = strings.TrimLeft(l, " ")
		}
	}
	return strings.Join(lines, "\n"), common
}

// wrapStyle tells how the console wrapped long Format-List values.
// PowerShell's own list view breaks at spaces and drops the space, so the
// wrapped lines have different lengths; a console buffer (and PowerShell 7's
// list view on narrow windows) breaks at a fixed width, in the middle of a
// token: every wrapped line is then exactly as wide as the buffer, and the
// pieces must be joined without a space.
type wrapStyle struct {
	hardWidth int // the buffer width, when wrapping was at a fixed width; 0 if not
	byCells   bool
}

// lineWidth is a line's width in runes or in console cells (East Asian wide
// characters take two cells in a console).
func lineWidth(s string, cells bool) int {
	if !cells {
		return utf8.RuneCountInString(s)
	}
	w := 0
	for _, r := range s {
		w++
		if isWide(r) {
			w++
		}
	}
	return w
}

// isWide covers the CJK, Hangul and full-width ranges that consoles draw two
// cells wide.
func isWide(r rune) bool {
	return r >= 0x1100 && r <= 0x115F || r >= 0x2E80 && r <= 0xA4CF || r >= 0xAC00 && r <= 0xD7A3 ||
		r >= 0xF900 && r <= 0xFAFF || r >= 0xFE30 && r <= 0xFE4F || r >= 0xFF00 && r <= 0xFF60 || r >= 0xFFE0 && r <= 0xFFE6
}

// wrapBreak is one place where a value went on on the next line.
type wrapBreak struct{ prev, next string }

// detectWrap tells a fixed-width wrap: at least two breaks after lines of the
// same width, and at least one break that is plainly inside a token (a GUID
// or a number split, a word going on in lower case). Equal widths alone
// happen with word wrapping too, when records of one shape wrap alike.
func detectWrap(breaks []wrapBreak) wrapStyle {
	if len(breaks) < 2 {
		return wrapStyle{}
	}
	inside := false
	for _, b := range breaks {
		inside = inside || insideToken(b.prev, b.next)
	}
	if !inside {
		return wrapStyle{}
	}
	for _, cells := range []bool{false, true} {
		w := lineWidth(breaks[0].prev, cells)
		same := w >= 40
		for _, b := range breaks[1:] {
			same = same && lineWidth(b.prev, cells) == w
		}
		if same {
			return wrapStyle{hardWidth: w, byCells: cells}
		}
	}
	return wrapStyle{}
}

var (
	hexTail   = lazyRegexp(`[0-9A-Fa-f-]+$`)
	hexHead   = lazyRegexp(`^[0-9A-Fa-f-]+`)
	digitEnd  = lazyRegexp(`[0-9]$`)
	digitHead = lazyRegexp(`^[0-9]`)
	letterEnd = lazyRegexp(`\pL$`)
	lowerHead = lazyRegexp(`^\p{Ll}`)
)

// insideToken: the break split a GUID, a number, or a word (a letter
// followed by a lower-case one: word wrapping never starts a line inside
// a word).
func insideToken(prev, next string) bool {
	next = strings.TrimSpace(next)
	return guidSpans(prev, next) || digitEnd().MatchString(prev) && digitHead().MatchString(next) ||
		letterEnd().MatchString(prev) && lowerHead().MatchString(next)
}

// guidSpans: the hex run at the end of prev and the one at the start of
// next make a GUID that neither holds alone.
func guidSpans(prev, next string) bool {
	t, h := hexTail().FindString(prev), hexHead().FindString(strings.TrimSpace(next))
	if t == "" || h == "" {
		return false
	}
	joined := t + h
	for _, loc := range guidIn().FindAllStringIndex(joined, -1) {
		if loc[0] < len(t) && loc[1] > len(t) {
			return true
		}
	}
	return false
}

// joinWrapped appends a continuation to a value: without a space where the
// previous physical line filled the buffer (a break inside a token) or the
// break split a GUID, else with the space the console dropped.
func (ws wrapStyle) joinWrapped(b *strings.Builder, prevLine, cont string) {
	hard := ws.hardWidth > 0 && lineWidth(prevLine, ws.byCells) == ws.hardWidth
	if b.Len() > 0 && !hard && !guidSpans(prevLine, cont) {
		b.WriteByte(' ')
	}
	b.WriteString(cont)
}
