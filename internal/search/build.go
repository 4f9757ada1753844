package search

import (
	"math"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	txt "github.com/memhq/mem/internal/text" // Parse's argument is named text
)

// A query is bounded before it reaches FTS5, since its cost grows with the
// strings it ORs together: a long text (a pasted log) keeps at most
// MaxTerms of its words, the most distinctive ones (see distinctive), that
// make at most MaxUnits strings (a camelCase word brings its parts too), and
// at most MaxPhrases joined phrases (paths, snake_case). Measured in process
// at 100k observations on pasted logs of 10 KB: the first 32 words cost
// 110-200 ms of CPU, these bounds 30-50 ms, a typical query 20 ms. The
// questions of the LoCoMo eval have at most 14 words and 15 strings, so
// they stay whole.
const (
	MaxTerms   = 14
	MaxUnits   = 16
	MaxPhrases = 4
)

// Term is one word of a query, lower-cased. Parts holds the pieces of a
// camelCase word ("parsedsn" has parts parse, dsn), which the index keeps in
// its search_terms column.
type Term struct {
	Text  string
	Parts []string
}

// Plan is a parsed query: the words to look for and the phrases formed by
// words that were joined without a space (SQLITE_BUSY, re-index, db.go).
type Plan struct {
	Terms   []Term
	Phrases [][]string
}

// Empty reports whether the query has nothing to search for.
func (p Plan) Empty() bool { return len(p.Terms) == 0 }

// Words returns the words of the plan, camelCase parts included, once each.
func (p Plan) Words() []string {
	seen := map[string]bool{}
	var out []string
	add := func(w string) {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	for _, t := range p.Terms {
		add(t.Text)
		for _, part := range t.Parts {
			add(part)
		}
	}
	return out
}

// isWordRune matches what SQLite's unicode61 tokenizer keeps as token
// characters: letters, numbers and private-use characters.
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.Is(unicode.Co, r)
}

// isJoiner is punctuation that glues words into one identifier or path:
// snake_case, kebab-case, dotted.names, paths/like/this, pkg::name.
func isJoiner(r rune) bool {
	return strings.ContainsRune("_-./\\:", r)
}

// Parse turns free text into a plan. Stopwords are dropped unless the query
// has nothing else; at most MaxTerms distinct words are kept.
func Parse(text string) Plan {
	var all []Term
	var phrases [][]string
	seen := map[string]bool{}
	count := map[string]int{}
	seenPhrase := map[string]bool{}
	var group []string // words joined by joiners, for a phrase
	flush := func() {
		if len(group) > 1 && len(group) <= 8 {
			key := strings.Join(group, " ")
			if !seenPhrase[key] {
				seenPhrase[key] = true
				phrases = append(phrases, group)
			}
		}
		group = nil
	}
	rs := []rune(text)
	for i := 0; i < len(rs); {
		if !isWordRune(rs[i]) {
			if !isJoiner(rs[i]) || i+1 >= len(rs) || !isWordRune(rs[i+1]) || i == 0 || !isWordRune(rs[i-1]) {
				flush()
			}
			i++
			continue
		}
		j := i
		for j < len(rs) && isWordRune(rs[j]) {
			j++
		}
		raw := string(rs[i:j])
		i = j
		w := strings.ToLower(raw)
		group = append(group, w)
		count[w]++
		if seen[w] {
			continue
		}
		seen[w] = true
		t := Term{Text: w}
		if parts := txt.SplitIdent(raw); len(parts) > 1 {
			for _, p := range parts {
				t.Parts = append(t.Parts, strings.ToLower(p))
			}
		}
		all = append(all, t)
	}
	flush()

	var kept []Term
	for _, t := range all {
		if !txt.IsStopword(t.Text) {
			kept = append(kept, t)
		}
	}
	if len(kept) == 0 {
		kept = all // a query of stopwords only still searches for them
	}
	units := 0
	for _, t := range kept {
		units += t.units()
	}
	if len(kept) > MaxTerms || units > MaxUnits {
		kept = distinctive(kept, count)
	}
	if len(phrases) > MaxPhrases {
		phrases = phrases[:MaxPhrases]
	}
	return Plan{Terms: kept, Phrases: phrases}
}

// units is how many FTS5 strings Units makes of t: the word and, for a
// camelCase word, its parts as a phrase and each part.
func (t Term) units() int {
	if len(t.Parts) > 1 {
		return 2 + len(t.Parts)
	}
	return 1
}

// distinctive keeps the terms of a long text that are most likely rare in
// memory, at most MaxTerms of them and MaxUnits strings, in their order in
// the text. A pasted log repeats its boilerplate (levels, "goroutine",
// "at") and is full of numbers that name nothing (line numbers, ids,
// offsets, durations); what other records share with it are the words it
// has once or twice, long words and identifiers.
func distinctive(terms []Term, count map[string]int) []Term {
	score := func(t Term) float64 {
		s := math.Min(float64(utf8.RuneCountInString(t.Text)), 12)
		if len(t.Parts) > 1 {
			s += 4 // an identifier: parseDSN, OrderService
		}
		if numeric(t.Text) {
			s -= 8
		}
		return s - 2*math.Log2(float64(count[t.Text]))
	}
	order := make([]int, len(terms))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return score(terms[order[a]]) > score(terms[order[b]]) })
	var keep []int
	units := 0
	for _, i := range order {
		if len(keep) == MaxTerms {
			break
		}
		if u := terms[i].units(); units+u <= MaxUnits {
			keep = append(keep, i)
			units += u
		}
	}
	sort.Ints(keep)
	out := make([]Term, len(keep))
	for i, j := range keep {
		out[i] = terms[j]
	}
	return out
}

// numeric reports a word that starts with a digit: a line number, an id,
// an address (0x1d), a time (12ms, 02t12) or a date.
func numeric(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsDigit(r)
}

// quote makes s one FTS5 string: the only way text reaches MATCH.
func quote(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// MatchOptions shape the FTS5 expression built from a plan.
type MatchOptions struct {
	// Prefix adds * to words of at least this many characters (0: never),
	// so "migrat" finds migration and migrate.
	Prefix int
	// Bigrams adds each pair of neighbouring query words as a phrase, so
	// rows that have them together score higher (sequential dependence).
	Bigrams bool
}

// Match returns the FTS5 MATCH expression for the plan: every word, the
// camelCase parts of a word as a phrase, and the joined phrases, OR-ed, so
// that one absent word never empties the result while bm25 ranks rows that
// have more of them, and rarer ones, first. It returns "" for an empty plan.
// Every word is a quoted string, so no input is FTS5 syntax.
func (p Plan) Match(o MatchOptions) string {
	return strings.Join(p.Units(o), " OR ")
}

// Units returns the quoted FTS5 strings that Match ORs together.
func (p Plan) Units(o MatchOptions) []string {
	var parts []string
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			parts = append(parts, s)
		}
	}
	for _, t := range p.Terms {
		w := quote(t.Text)
		if o.Prefix > 0 && len([]rune(t.Text)) >= o.Prefix {
			w += "*"
		}
		add(w)
		if len(t.Parts) > 1 {
			add(quote(strings.Join(t.Parts, " ")))
			for _, part := range t.Parts {
				if !txt.IsStopword(part) && len([]rune(part)) > 1 {
					add(quote(part))
				}
			}
		}
	}
	for _, ph := range p.Phrases {
		add(quote(strings.Join(ph, " ")))
	}
	if o.Bigrams {
		for i := 1; i < len(p.Terms); i++ {
			add(quote(p.Terms[i-1].Text + " " + p.Terms[i].Text))
		}
	}
	return parts
}
