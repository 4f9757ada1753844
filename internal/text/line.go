package text

import "strings"

// FirstLine is the first line of s, trimmed of the space around s.
func FirstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}

// OneLine joins the words of s with single spaces: its line breaks and
// runs of space become one space.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// CutWord shortens s to at most n bytes and an ellipsis: at the last space
// in the second half of those bytes, else at half of them, a character
// split by the cut dropped; s of n bytes or less is returned as it is.
func CutWord(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 && !strings.HasSuffix(s, " ") && len(s) > n/2 {
		s = s[:len(s)-1]
	}
	return strings.ToValidUTF8(strings.TrimSpace(s), "") + "…"
}

// ASCIILower lower-cases ASCII letters only, byte for byte, so that an
// index into the result is an index into s (strings.ToLower may change
// lengths: invalid UTF-8 becomes U+FFFD, some letters lower to other
// widths). It allocates only when s has an upper case ASCII letter.
func ASCIILower(s string) string {
	i := 0
	for i < len(s) && (s[i] < 'A' || s[i] > 'Z') {
		i++
	}
	if i == len(s) {
		return s
	}
	b := []byte(s)
	for ; i < len(b); i++ {
		if c := b[i]; c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// Distinctive reports whether a line of code says enough to be recognised
// elsewhere: at least 12 characters other than space, brackets and
// separators, so not a brace, a bare return or a short word many edits
// share.
func Distinctive(l string) bool {
	n := 0
	for _, r := range l {
		if r > ' ' && !strings.ContainsRune("{}()[];,", r) {
			n++
		}
	}
	return n >= 12
}
