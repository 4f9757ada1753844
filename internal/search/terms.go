// Package search turns free text into safe FTS5 queries and index terms, and
// ranks the rows those queries find. It has no database of its own: Rank
// reads through a Source, which the store implements.
package search

import (
	"strings"
	"unicode"
)

// IndexTerms returns the extra words to index for text so that identifiers
// match by their parts: "parseDSN" adds "parse dsn", "OrderService" adds
// "order service". Words that do not split are not repeated.
func IndexTerms(texts ...string) string {
	var b strings.Builder
	seen := map[string]bool{}
	for _, text := range texts {
		for _, w := range strings.FieldsFunc(text, func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r)
		}) {
			parts := SplitCamel(w)
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

// SplitCamel splits an identifier at lower-to-upper and letter-digit
// boundaries and before the last capital of an acronym: "parseDSNConfig"
// gives parse, DSN, Config.
func SplitCamel(w string) []string {
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
