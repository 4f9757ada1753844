package search

import (
	"strings"
	"unicode/utf8"

	"github.com/memhq/mem/internal/text"
)

func toLower(s string) string { return strings.ToLower(s) }

// Snippet returns the part of s, at most maxWords words long, with the
// most query words, those words marked [like this]. Text without any of the
// words gives its beginning. Lines are joined with spaces.
func Snippet(s string, query []string, maxWords int) string {
	if maxWords <= 0 {
		maxWords = 16
	}
	fields := splitFields(s)
	if len(fields) == 0 {
		return ""
	}
	stems := map[string]bool{}
	for _, w := range query {
		stems[text.Stem(w)] = true
	}
	hit := make([]bool, len(fields))
	for i, f := range fields {
		hit[i] = !eachWord(f, func(w string) bool { return !stems[text.Stem(w)] })
	}
	// The window of maxWords fields with the most hits; the first on ties.
	bestStart, bestCount, count := 0, -1, 0
	for i := range fields {
		if hit[i] {
			count++
		}
		if i >= maxWords && hit[i-maxWords] {
			count--
		}
		start := i - maxWords + 1
		if start < 0 {
			start = 0
		}
		if count > bestCount {
			bestStart, bestCount = start, count
		}
	}
	// Start the window a little before its first hit, for context.
	first := bestStart
	for first < len(fields) && !hit[first] {
		first++
	}
	if first < len(fields) && first-bestStart > 3 {
		bestStart = first - 3
	}
	end := bestStart + maxWords
	if end > len(fields) {
		end = len(fields)
	}
	var b strings.Builder
	if bestStart > 0 {
		b.WriteString("… ")
	}
	for i := bestStart; i < end; i++ {
		if i > bestStart {
			b.WriteByte(' ')
		}
		f := fields[i]
		if utf8.RuneCountInString(f) > 60 {
			f = string([]rune(f)[:60]) + "…"
		}
		if hit[i] {
			b.WriteString("[" + f + "]")
		} else {
			b.WriteString(f)
		}
	}
	if end < len(fields) {
		b.WriteString(" …")
	}
	return b.String()
}

// splitFields is strings.Fields, its slice made once at its size: a text
// with a character beyond ASCII would grow it field by field.
func splitFields(s string) []string {
	n := 0
	for range strings.FieldsSeq(s) {
		n++
	}
	fields := make([]string, 0, n)
	for f := range strings.FieldsSeq(s) {
		fields = append(fields, f)
	}
	return fields
}

// HasPhrase reports whether s has the words one after the other, or
// written as one identifier (parse dsn matches parseDSN and parse_dsn).
// Words compare by light stem.
func HasPhrase(s string, words []string) bool {
	return NewPhraseText(s).Has(words)
}

// PhraseText is a text split and stemmed once, to look for many phrases.
type PhraseText struct {
	toks, stems []string
}

// NewPhraseText splits s by Words and stems its words.
func NewPhraseText(s string) PhraseText {
	toks := Words(s)
	stems := make([]string, len(toks))
	for i, t := range toks {
		stems[i] = text.Stem(t)
	}
	return PhraseText{toks, stems}
}

// Has is HasPhrase for the text.
func (p PhraseText) Has(words []string) bool {
	if len(words) == 0 {
		return false
	}
	joined := strings.Join(words, "")
	ws := make([]string, len(words))
	for i, w := range words {
		ws[i] = text.Stem(w)
	}
	for i := range p.toks {
		if p.toks[i] == joined {
			return true
		}
		if i+len(ws) > len(p.toks) {
			continue
		}
		ok := true
		for j, w := range ws {
			if p.stems[i+j] != w {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}
