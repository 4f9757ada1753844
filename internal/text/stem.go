package text

import (
	"strings"
	"unicode/utf8"
)

// Stem is a light suffix stripper, close enough to the index's Porter
// stemmer to say whether two words match: "refunds", "refunded" and
// "refunding" all give "refund"; "query", "queries" and "queried" give
// "quer". It expects lower case. The stem is always a prefix of the word, so
// it also finds the word by substring in text that was not stemmed.
func Stem(w string) string {
	if strings.HasSuffix(w, "ies") && len(w) > 4 {
		return strings.TrimSuffix(w, "ies")
	}
	for _, suf := range []string{"ational", "ation", "ings", "ing", "edly", "ed", "es", "ly", "s"} {
		if strings.HasSuffix(w, suf) && utf8.RuneCountInString(w)-len(suf) >= 3 {
			w = strings.TrimSuffix(w, suf)
			break
		}
	}
	if len(w) > 3 && (strings.HasSuffix(w, "y") || strings.HasSuffix(w, "i")) {
		return w[:len(w)-1]
	}
	return strings.TrimSuffix(w, "e")
}
