package recall

import (
	"math"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/text"
)

// Factors explain a relevance score: each factor is in [0, 1] and the score
// is the sum of the factors times their weights.
type Factors struct {
	Recency    float64 `json:"recency"`
	Importance float64 `json:"importance"`
	AgentType  float64 `json:"agent_type"`
	Keyword    float64 `json:"keyword"`
	// Matched are the keywords the observation contains.
	Matched []string `json:"matched,omitempty"`
}

// scorer ranks observations for one request.
type scorer struct {
	ref       time.Time
	halfLife  time.Duration
	weights   Weights
	agentType string
	keywords  map[string]bool
}

// maxKeywords bounds the keyword set: long sessions touch many files.
const maxKeywords = 64

// keywordsOf returns the distinct significant words of texts, in order of
// first appearance: lowercased letters and digits, at least three long, not
// a stop word; a path also gives its file name without extension.
func keywordsOf(texts ...string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range texts {
		for _, w := range words(t) {
			if len(out) == maxKeywords {
				return out
			}
			if !seen[w] {
				seen[w] = true
				out = append(out, w)
			}
		}
	}
	return out
}

// words splits text into lowercased significant words.
func words(text string) []string {
	var out []string
	eachWord(text, func(w string) { out = append(out, w) })
	return out
}

// eachWord calls fn with each significant word of s, lowercased: a run of
// letters and digits at least three long that is not a noise word. It
// allocates only for words with upper-case letters.
func eachWord(s string, fn func(string)) {
	start, runes, upper := -1, 0, false
	flush := func(end int) {
		if start >= 0 && runes >= 3 {
			w := s[start:end]
			if upper {
				w = strings.ToLower(w)
			}
			if !text.IsNoise(w) {
				fn(w)
			}
		}
		start, runes, upper = -1, 0, false
	}
	for i, r := range s {
		if r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') ||
			r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			if start < 0 {
				start = i
			}
			runes++
			upper = upper || r >= 'A' && r <= 'Z' || r >= utf8.RuneSelf && unicode.IsUpper(r)
			continue
		}
		flush(i)
	}
	flush(len(s))
}

// fileWords are the words of paths (which include their file names).
func fileWords(paths []string) []string {
	var out []string
	for _, p := range paths {
		out = append(out, words(p)...)
	}
	return out
}

// recency is how recent t is: 1 at the reference time, halving every
// half-life before it.
func (s *scorer) recency(t time.Time) float64 {
	age := max(s.ref.Sub(t), 0)
	if s.halfLife <= 0 {
		return 1
	}
	return math.Exp2(-float64(age) / float64(s.halfLife))
}

// score computes an observation's relevance.
func (s *scorer) score(o memory.Observation) (float64, Factors) {
	f := Factors{Recency: s.recency(o.CreatedAt)}
	f.Importance = o.Type.Importance()
	if s.agentType != "" && strings.EqualFold(o.AgentType, s.agentType) {
		f.AgentType = 1
	}
	if len(s.keywords) > 0 {
		match := func(w string) {
			if s.keywords[w] && !slices.Contains(f.Matched, w) {
				f.Matched = append(f.Matched, w)
			}
		}
		for _, l := range [][]string{{o.Title, o.Subtitle}, o.Concepts, o.FilesModified, o.FilesRead} {
			for _, t := range l {
				eachWord(t, match)
			}
		}
		sort.Strings(f.Matched)
		f.Keyword = math.Min(1, float64(len(f.Matched))/math.Min(float64(len(s.keywords)), 3))
	}
	w := s.weights
	total := w.Recency*f.Recency + w.Importance*f.Importance + w.AgentType*f.AgentType + w.Keyword*f.Keyword
	return round(total), Factors{Recency: round(f.Recency), Importance: f.Importance, AgentType: f.AgentType,
		Keyword: round(f.Keyword), Matched: f.Matched}
}

// round keeps four decimals, so scores print and compare the same everywhere.
func round(x float64) float64 { return math.Round(x*1e4) / 1e4 }
