package privacy

import (
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// rule is one secret pattern of the catalogue (catalogue.go, generated).
type rule struct {
	id, source string
	re         string
	// group is the capture group that holds the secret; 0 for the first
	// group that matched, or the whole match when there is none.
	group int
	// entropy: when set, a secret of no more Shannon entropy (bits per
	// byte) is not one.
	entropy float64
	// minRun is a lower bound on the longest run of token characters in
	// any match: a text with no run as long holds no match.
	minRun int
	// lines is how many line breaks a match can span (-1: any number): the
	// rule is tried on the lines around its keywords only, as far as a
	// match can reach.
	lines int
	// requires lists literals every match holds, as indexes into keywords.
	requires []uint16
}

// keyword is a literal that calls for rules: a text that holds none of a
// rule's keywords is not searched with it.
type keyword struct {
	word  string // lowercase ASCII
	rules []uint16
}

// assignmentRule is the id of the rule whose value mem judges by its name.
const assignmentRule = "assignment"

// compiled holds each rule's pattern, compiled the first time a text calls
// for it: compiling the whole catalogue would cost a hook process more than
// everything else it does.
var compiled [len(catalogue)]struct {
	once sync.Once
	re   *regexp.Regexp
}

func pattern(i int) *regexp.Regexp {
	c := &compiled[i]
	c.once.Do(func() { c.re = regexp.MustCompile(catalogue[i].re) })
	return c.re
}

// span is where a secret was found: the whole match, and the secret in it
// (what is replaced).
type span struct {
	start, end             int // the match
	secretStart, secretEnd int // the secret in it
}

// Redact replaces secrets by [REDACTED].
func Redact(text string) string {
	spans := secretSpans(text)
	if len(spans) == 0 {
		return text
	}
	slices.SortFunc(spans, func(a, b span) int { return a.secretStart - b.secretStart })
	var b strings.Builder
	b.Grow(len(text))
	at := 0
	for _, s := range spans {
		if s.secretStart < at {
			// Overlaps the secret replaced last: that replacement covers it.
			at = max(at, s.secretEnd)
			continue
		}
		b.WriteString(text[at:s.secretStart])
		b.WriteString(Redacted)
		at = s.secretEnd
	}
	b.WriteString(text[at:])
	return b.String()
}

// secretSpans returns where the catalogue's rules find secrets in text.
func secretSpans(text string) []span {
	sc := scan(text)
	var spans []span
	if sc.folds {
		// Keywords are looked for with the folding letters written as the
		// ASCII ones they match; the rules found search the whole text.
		folded := scan(foldASCII(text))
		var searched [len(catalogue)]bool
		for _, h := range folded.hits {
			if r := &catalogue[h.rule]; !searched[h.rule] && r.minRun <= sc.run && folded.holdsAll(r.requires) {
				searched[h.rule] = true
				spans = find(spans, int(h.rule), text, 0, len(text))
			}
		}
		return spans
	}
	// Hits come in text order. Each rule searches the lines around its
	// hits, joined where they touch, or the whole text once.
	var window [len(catalogue)]struct{ from, to int } // to = 0: none yet
	var open []uint16                                 // the rules with a window
	for _, h := range sc.hits {
		r, w := &catalogue[h.rule], &window[h.rule]
		if r.minRun > sc.run || w.to == len(text) || !sc.holdsAll(r.requires) {
			continue
		}
		from, to := 0, len(text)
		if r.lines >= 0 {
			from, to = linesAround(text, h.pos, r.lines)
		}
		switch {
		case w.to == 0:
			open = append(open, h.rule)
			w.from, w.to = from, to
		case from <= w.to:
			w.to = max(w.to, to)
		default:
			spans = find(spans, int(h.rule), text, w.from, w.to)
			w.from, w.to = from, to
		}
	}
	for _, i := range open {
		spans = find(spans, int(i), text, window[i].from, window[i].to)
	}
	return spans
}

// linesAround returns the bounds of the line holding text[pos] and of n
// lines before and after it, line breaks included.
func linesAround(text string, pos, n int) (from, to int) {
	from = pos
	for k := 0; k <= n && from > 0; k++ {
		from = strings.LastIndexByte(text[:from-min(k, 1)], '\n') + 1
	}
	to = pos
	for k := 0; k <= n && to < len(text); k++ {
		e := strings.IndexByte(text[to:], '\n')
		if e < 0 {
			return from, len(text)
		}
		to += e + 1
	}
	return from, to
}

// find appends the secrets rule i finds in text[from:to].
func find(spans []span, i int, text string, from, to int) []span {
	r := &catalogue[i]
	if r.id == assignmentRule && !strings.ContainsAny(text[from:to], ":=") {
		return spans // nothing is assigned there
	}
	re := pattern(i)
	for _, m := range re.FindAllStringSubmatchIndex(text[from:to], -1) {
		for k := range m {
			if m[k] >= 0 {
				m[k] += from
			}
		}
		s := span{start: m[0], end: m[1], secretStart: m[0], secretEnd: m[1]}
		switch {
		case r.group > 0 && 2*r.group+1 < len(m) && m[2*r.group] >= 0:
			s.secretStart, s.secretEnd = m[2*r.group], m[2*r.group+1]
		case r.group == 0:
			for g := 2; g+1 < len(m); g += 2 {
				if m[g] >= 0 && m[g+1] > m[g] {
					s.secretStart, s.secretEnd = m[g], m[g+1]
					break
				}
			}
		}
		secret := text[s.secretStart:s.secretEnd]
		if strings.Contains(secret, Redacted) {
			continue // found again in filtered text
		}
		if r.entropy > 0 && entropy(secret) <= r.entropy {
			continue
		}
		if r.id == assignmentRule {
			name := text[m[2]:m[3]]
			if !secretValue(name, secret) {
				// The value is kept, but it may hold an assignment of its
				// own ("token: password=..."), which this match consumed.
				spans = find(spans, i, text, s.secretStart, s.secretEnd)
				continue
			}
		}
		spans = append(spans, s)
	}
	return spans
}

// entropy is the Shannon entropy of s in bits per byte.
func entropy(s string) float64 {
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / float64(len(s))
			h -= p * math.Log2(p)
		}
	}
	return h
}

// hit is a keyword found at pos, calling for a rule.
type hit struct {
	rule uint16
	pos  int
}

// scanned is what one pass over a text tells: the keywords it holds and its
// longest run of token characters.
type scanned struct {
	hits  []hit
	seen  [(len(keywords) + 63) / 64]uint64 // the keywords found
	run   int
	folds bool // holds U+017F or U+212A
}

// holdsAll reports whether the text holds every keyword of list.
func (sc *scanned) holdsAll(list []uint16) bool {
	for _, k := range list {
		if sc.seen[k>>6]&(1<<(k&63)) == 0 {
			return false
		}
	}
	return true
}

// keywordIndex finds keywords in one pass: a bit for each hash of the first
// three bytes of a keyword (for a keyword of two bytes, of them and any
// third byte), and a table of each byte's class and lowercase.
type keywordIndex struct {
	triples [1 << 16 / 64]uint64
	lower   [256]byte
	token   [256]bool
}

var (
	indexOnce sync.Once
	index     *keywordIndex
)

// keywordsIndex builds the index the first time a text is scanned.
func keywordsIndex() *keywordIndex {
	indexOnce.Do(func() {
		x := new(keywordIndex)
		for c := range 256 {
			b := byte(c)
			x.lower[c] = lower(b)
			x.token[c] = b >= 0x80 || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_' || b == '-'
		}
		for _, k := range keywords {
			w := k.word
			if len(w) > 2 {
				x.set(tripleHash(w[0], w[1], w[2]))
				continue
			}
			for c := range 256 {
				x.set(tripleHash(w[0], w[1], x.lower[c]))
			}
		}
		index = x
	})
	return index
}

func (x *keywordIndex) set(h uint16) { x.triples[h>>6] |= 1 << (h & 63) }

func tripleHash(a, b, c byte) uint16 { return uint16(a)<<9 ^ uint16(b)<<4 ^ uint16(c) }

// foldASCII writes the letters that case-insensitive patterns match as
// ASCII ones (U+017F as s, U+212A as k) as those.
func foldASCII(s string) string {
	if !strings.Contains(s, "\u017f") && !strings.Contains(s, "\u212a") {
		return s
	}
	return strings.NewReplacer("\u017f", "s", "\u212a", "k").Replace(s)
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// scan reads text once. Token characters are ASCII letters and digits, '_',
// '-' and every byte of a non-ASCII character, which case folding may have
// matched for an ASCII letter (the generator counts the same way). Keywords
// are matched in ASCII case; secretSpans looks again at a text holding the
// letters that case-insensitive patterns match as ASCII ones (U+017F, U+212A).
func scan(text string) *scanned {
	x := keywordsIndex()
	sc := new(scanned)
	run := 0
	var a, b byte // the two bytes before c, lowercased
	for i := 0; i < len(text); i++ {
		c := text[i]
		if x.token[c] {
			run++
			sc.run = max(sc.run, run)
		} else {
			run = 0
		}
		c = x.lower[c]
		if h := tripleHash(a, b, c); i >= 2 && x.triples[h>>6]&(1<<(h&63)) != 0 {
			sc.keywordsAt(text, i-2)
		}
		a, b = b, c
	}
	if len(text) >= 2 {
		sc.keywordsAt(text, len(text)-2) // a keyword of two bytes at the end
	}
	sc.folds = strings.Contains(text, "\u017f") || strings.Contains(text, "\u212a")
	return sc
}

// keywordsAt notes each keyword that starts at text[i], and a hit for each
// of its rules.
func (sc *scanned) keywordsAt(text string, i int) {
	a, b := lower(text[i]), lower(text[i+1])
	k, hi := 0, len(keywords)
	for k < hi { // the first keyword that starts with a, b
		m := int(uint(k+hi) >> 1)
		if w := keywords[m].word; w[0] < a || w[0] == a && w[1] < b {
			k = m + 1
		} else {
			hi = m
		}
	}
	for ; k < len(keywords) && keywords[k].word[0] == a && keywords[k].word[1] == b; k++ {
		w := keywords[k].word
		if !hasFoldPrefix(text[i+2:], w[2:]) || sc.seen[k>>6]&(1<<(k&63)) != 0 && len(keywords[k].rules) == 0 {
			continue
		}
		sc.seen[k>>6] |= 1 << (k & 63)
		for _, r := range keywords[k].rules {
			sc.hits = append(sc.hits, hit{rule: r, pos: i})
		}
	}
}

// hasFoldPrefix reports whether s starts with the lowercase ASCII prefix,
// in any ASCII case.
func hasFoldPrefix(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for j := 0; j < len(prefix); j++ {
		if lower(s[j]) != prefix[j] {
			return false
		}
	}
	return true
}

// secretValue decides whether the value assigned to a secret-sounding name is
// a secret. A password's, a secret's or a key's value always is, and so is a
// quoted literal; a bare value of a token must look like one (8 or more
// characters with a digit), so prose such as "mergeToken: context deadline
// exceeded" and code such as "token = next()" stay readable.
func secretValue(name, value string) bool {
	lname := strings.ToLower(foldASCII(name))
	for _, always := range []string{"passw", "_pass", "-pass", "pwd", "secret", "key"} {
		if strings.Contains(lname, always) {
			return true
		}
	}
	if strings.HasPrefix(value, `"`) || strings.HasPrefix(value, "'") {
		return true
	}
	return len(value) >= 8 && strings.ContainsAny(value, "0123456789")
}
