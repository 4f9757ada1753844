package text

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// SplitIdent splits an identifier at lower-to-upper and letter-digit
// boundaries and before the last capital of an acronym, in any script:
// "parseDSNConfig" gives parse, DSN, Config; "oauth2Client" gives oauth, 2,
// Client. A word without boundaries comes back alone.
func SplitIdent(w string) []string {
	rs := []rune(w)
	var parts []string
	start := 0
	for i := 1; i < len(rs); i++ {
		prev, cur := rs[i-1], rs[i]
		boundary := (unicode.IsLower(prev) && unicode.IsUpper(cur)) ||
			(unicode.IsLetter(prev) && unicode.IsDigit(cur)) ||
			(unicode.IsDigit(prev) && unicode.IsLetter(cur)) ||
			(unicode.IsUpper(prev) && unicode.IsUpper(cur) && i+1 < len(rs) && unicode.IsLower(rs[i+1]))
		if boundary {
			parts = append(parts, string(rs[start:i]))
			start = i
		}
	}
	return append(parts, string(rs[start:]))
}

// IndexTerms returns the extra words to index for text so that identifiers
// match by their parts: "parseDSN" adds "parse dsn", "OrderService" adds
// "order service". Words that do not split are not repeated.
func IndexTerms(texts ...string) string {
	var b strings.Builder
	seen := map[string]bool{}
	for _, t := range texts {
		for _, w := range strings.FieldsFunc(t, func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r)
		}) {
			parts := SplitIdent(w)
			if len(parts) < 2 {
				continue
			}
			key := strings.ToLower(w)
			if seen[key] {
				continue
			}
			seen[key] = true
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(strings.ToLower(strings.Join(parts, " ")))
		}
	}
	return b.String()
}

// Cut shortens s, trimmed, to max runes, marking the cut with an ellipsis.
func Cut(s string, max int) string {
	s = strings.TrimSpace(s)
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	return strings.TrimSpace(string(r[:max-1])) + "…"
}

// UpperFirst returns s with its first letter in upper case.
func UpperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 || r == utf8.RuneError {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}
