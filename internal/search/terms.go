// Package search turns free text into safe FTS5 queries and index terms, and
// ranks the rows those queries find. It has no database of its own: Rank
// reads through a Source, which the store implements.
package search

import (
	"strings"
	"unicode"

	"github.com/memhq/mem/internal/text"
)

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
			parts := text.SplitIdent(w)
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
