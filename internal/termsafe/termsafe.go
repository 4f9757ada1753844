// Package termsafe makes untrusted text (tool output, file contents, ids
// from events and imports) safe to print: control characters are written
// as visible escapes, so that no byte of stored text can move the cursor,
// clear the screen, set the clipboard (OSC 52), plant a link (OSC 8) or
// reorder what a reader sees.
package termsafe

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// IsControl reports whether r must not reach a terminal as it is: C0 and
// C1 controls and DEL, the line and paragraph separators, and the
// bidirectional marks, embeddings, overrides and isolates.
func IsControl(r rune) bool {
	switch {
	case unicode.IsControl(r), r == '\u2028', r == '\u2029':
		return true
	case r == '\u061c', r == '\u200e', r == '\u200f':
		return true
	case r >= '\u202a' && r <= '\u202e', r >= '\u2066' && r <= '\u2069':
		return true
	}
	return false
}

// HasControl reports whether s holds a control character (IsControl) or
// invalid UTF-8.
func HasControl(s string) bool {
	return strings.IndexFunc(s, IsControl) >= 0 || !utf8.ValidString(s)
}

// Line returns s with every control character, line breaks and tabs
// included, written as a Go escape (\x1b, \n, \u2028) and every invalid
// byte as \xNN: the result is one line of printable text.
func Line(s string) string { return escape(s, false) }

// Text is Line keeping line breaks and tabs, for text laid out on several
// lines.
func Text(s string) string { return escape(s, true) }

func escape(s string, layout bool) string {
	keep := func(r rune) bool { return layout && (r == '\n' || r == '\t') }
	if utf8.ValidString(s) && strings.IndexFunc(s, func(r rune) bool { return IsControl(r) && !keep(r) }) < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case IsControl(r) && !keep(r):
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Writer writes through to w with Text applied to each write. Each write
// must hold whole characters, as every fmt.Fprint call does.
type Writer struct{ w io.Writer }

// NewWriter returns a Writer over w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write writes Text(p) and reports len(p) written when all of it went out.
func (t *Writer) Write(p []byte) (int, error) {
	s := Text(string(p))
	if _, err := io.WriteString(t.w, s); err != nil {
		return 0, err
	}
	return len(p), nil
}
