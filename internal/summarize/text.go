package summarize

import (
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/memhq/mem/internal/lazy"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/tokens"
)

var (
	codeFence = lazy.NewRegexp("(?s)```.*?(```|$)")
	markup    = &lazy.Value[*strings.Replacer]{New: func() *strings.Replacer { return strings.NewReplacer("**", "", "__", "", "`", "") }}
	space     = lazy.NewRegexp(`\s+`)
)

// clean makes one line of readable text of s: code blocks and embedded JSON
// are dropped, markdown emphasis and list markers removed, white space
// collapsed, and the result cut at a word boundary to at most max runes.
func clean(s string, max int) string {
	s = codeFence.Get().ReplaceAllString(s, " ")
	s = dropJSON(s)
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		l = strings.TrimLeft(l, "#>*-+• ")
		if l != "" {
			lines = append(lines, l)
		}
	}
	s = markup.Get().Replace(strings.Join(lines, " "))
	s = strings.TrimSpace(space.Get().ReplaceAllString(s, " "))
	return cut(s, max)
}

// item is clean for a list entry: no trailing sentence punctuation.
func item(s string, max int) string {
	return strings.TrimRight(clean(s, max), " .;:,")
}

// cut shortens s to at most max runes, at a word boundary, marking the cut.
func cut(s string, max int) string {
	if max <= 0 || utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)[:max-1]
	if i := lastSpace(r); i > max/2 {
		r = r[:i]
	}
	return strings.TrimRight(string(r), " ,;:.") + "…"
}

func lastSpace(r []rune) int {
	for i := len(r) - 1; i >= 0; i-- {
		if unicode.IsSpace(r[i]) {
			return i
		}
	}
	return -1
}

// dropJSON removes JSON objects and arrays embedded in text (tool inputs and
// outputs pasted into a message), which read badly in a summary.
func dropJSON(s string) string {
	if !strings.ContainsAny(s, "{[") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		if c == '{' || c == '[' {
			if end := balanced(s, i); end > i+1 && json.Valid([]byte(s[i:end])) && (c == '{' || end-i > 20) {
				b.WriteByte(' ')
				i = end
				continue
			}
		}
		b.WriteByte(c)
		i++
	}
	return b.String()
}

// balanced returns the index just past the bracket group opening at i, or -1.
func balanced(s string, i int) int {
	depth := 0
	inStr := false
	for j := i; j < len(s); j++ {
		c := s[j]
		switch {
		case inStr && c == '\\':
			j++
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
			if depth == 0 {
				return j + 1
			}
		}
	}
	return -1
}

// sentences splits prose into sentences (at . ! ? followed by space, and at
// line breaks), each cleaned.
func sentences(s string, max int) []string {
	s = codeFence.Get().ReplaceAllString(s, "\n")
	var out []string
	for _, line := range strings.Split(s, "\n") {
		start := 0
		for i := 0; i < len(line); i++ {
			if c := line[i]; (c == '.' || c == '!' || c == '?') && (i+1 == len(line) || line[i+1] == ' ') {
				if t := clean(line[start:i+1], max); t != "" {
					out = append(out, t)
				}
				start = i + 1
			}
		}
		if t := clean(line[start:], max); t != "" {
			out = append(out, t)
		}
	}
	return out
}

// dedup remembers what a summary already says, ignoring case, punctuation
// and spacing.
type dedup map[string]bool

func (d dedup) add(s string) bool {
	k := key(s)
	if k == "" || d[k] {
		return false
	}
	d[k] = true
	return true
}

func key(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// summaryTokens estimates the tokens of everything a summary says.
func summaryTokens(s memory.Summary) int {
	return tokens.Estimate(strings.Join([]string{s.Request, s.Investigated, s.Learned, s.Completed,
		s.NextSteps, s.Decisions, strings.Join(s.Concepts, ", "), strings.Join(s.Files, ", "), s.Text}, "\n"))
}
