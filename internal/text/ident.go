package text

import "unicode"

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
