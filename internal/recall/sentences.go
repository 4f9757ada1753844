package recall

import "strings"

// clauses splits text into pieces that each end at a sentence or clause
// boundary: after . ! ? ; or : followed by a space or line break, or at a
// line break. Joining the pieces gives back the text (trimmed); any prefix
// of them is text that stops at a boundary, never mid-sentence.
func clauses(text string) []string {
	text = strings.TrimSpace(text)
	var out []string
	start := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		end := -1
		switch {
		case c == '\n':
			end = i
		case (c == '.' || c == '!' || c == '?' || c == ';' || c == ':') && i+1 < len(text) && (text[i+1] == ' ' || text[i+1] == '\n'):
			end = i + 1
		}
		if end < 0 {
			continue
		}
		if p := strings.TrimSpace(text[start:end]); p != "" {
			out = append(out, text[start:end])
		}
		start = end
	}
	if strings.TrimSpace(text[start:]) != "" {
		out = append(out, text[start:])
	}
	return out
}

// prefix joins the first n clauses, trimmed.
func prefix(cl []string, n int) string {
	return strings.TrimSpace(strings.Join(cl[:n], ""))
}

// firstSentence returns text up to the end of its first sentence (or line).
func firstSentence(text string) string {
	cl := clauses(text)
	for n := 1; n <= len(cl); n++ {
		p := prefix(cl, n)
		if n == len(cl) || strings.HasSuffix(p, ".") || strings.HasSuffix(p, "!") || strings.HasSuffix(p, "?") ||
			strings.HasPrefix(cl[n], "\n") {
			return p
		}
	}
	return ""
}
