package search

import (
	"cmp"
	"math"
	"slices"
	"time"
)

// Ranking holds the knobs of how hits are scored. DefaultRanking is what
// mem search uses; every value there was chosen by measurement on the
// LoCoMo retrieval eval (see the README).
type Ranking struct {
	// Weights of the observations_fts columns in bm25: title, subtitle,
	// narrative, facts, concepts, files_read, files_modified, search_terms.
	Weights [8]float64
	// Candidates is how many rows per kind are scored before cutting to the
	// limit.
	Candidates int
	// Window bounds the work on a large database: a query word in more
	// than Window rows is common; bm25 runs on the other words and a common
	// word adds its estimated idf to its newest Window rows (0: no bound).
	Window int
	// SessionWeight adds the score of the observation's session summary for
	// the same query, so a fact whose session is about the question ranks
	// above a fact that merely shares a word with it.
	SessionWeight float64
	// SessionPower sharpens the session term: its normalised score is
	// raised to this power (1 when 0).
	SessionPower float64
	// Neighbors and NeighborWeight: the NeighborDocs best rows lend
	// NeighborWeight times their text score to the Neighbors observations
	// just before and after them in their session (what happened around a
	// match is often what the question is about).
	Neighbors      int
	NeighborDocs   int
	NeighborWeight float64
	// DateWeight adds this weight times DateScore for queries that name a
	// date ("on 13 October 2023", "in March 2024"), with DateWindow the
	// distance that halves it; DateExpand rows from the named days join
	// the candidates.
	DateWeight float64
	DateWindow time.Duration
	DateExpand int
	// SessionExpand adds every observation of the SessionExpand sessions
	// whose summaries match the query best to the candidates, so a fact that
	// shares no word with the question can still be found through its
	// session.
	SessionExpand int
	// SummaryWeight and PromptWeight scale the scores of summaries and prompts against
	// observations when kinds are mixed.
	SummaryWeight, PromptWeight float64
}

// DefaultRanking returns the ranking mem search uses.
func DefaultRanking() Ranking {
	return Ranking{
		Weights:        [8]float64{4, 2, 1, 1, 1.5, 1, 1, 1.5},
		Candidates:     200,
		Window:         500,
		SessionWeight:  0.7,
		SessionPower:   2,
		SessionExpand:  2,
		Neighbors:      1,
		NeighborDocs:   10,
		NeighborWeight: 0.3,
		DateWeight:     0.5,
		DateWindow:     72 * time.Hour,
		DateExpand:     50,
		SummaryWeight:  0.9,
		PromptWeight:   0.6,
	}
}

// Scored is a candidate with its final score.
type Scored struct {
	Candidate
	Score float64
}

// Combine scores the candidates of one kind: the query's bm25, normalised
// to the best candidate, plus the weighted date, neighbour and session
// terms. sessionScores maps a session id to its summary's bm25 for the same
// query. The result is sorted best first (ties: newer first, then higher id).
func (r Ranking) Combine(cands []Candidate, sessionScores map[string]float64) []Scored {
	best := func(get func(Candidate) float64) float64 {
		m := 0.0
		for _, c := range cands {
			m = math.Max(m, get(c))
		}
		return m
	}
	q := best(func(c Candidate) float64 { return -c.BM25 })
	s := 0.0
	for _, v := range sessionScores {
		s = math.Max(s, -v)
	}
	out := make([]Scored, len(cands))
	for i, c := range cands {
		score := norm(-c.BM25, q)
		score += r.DateWeight * c.DateFit
		score += r.NeighborWeight * norm(-c.Neighbor, q)
		if r.SessionWeight > 0 {
			v := norm(-sessionScores[c.Session], s)
			if r.SessionPower > 0 {
				v = math.Pow(v, r.SessionPower)
			}
			score += r.SessionWeight * v
		}
		out[i] = Scored{Candidate: c, Score: score}
	}
	sortScored(out)
	return out
}

func norm(v, max float64) float64 {
	if max <= 0 || v <= 0 {
		return 0
	}
	return v / max
}

// sortScored orders best first; ties go to the newer row, then the higher id,
// so the order is stable for the same data.
func sortScored(s []Scored) {
	slices.SortStableFunc(s, func(a, b Scored) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		if c := b.Date.Compare(a.Date); c != 0 {
			return c
		}
		return cmp.Compare(b.ID, a.ID)
	})
}

// Merge interleaves scored lists of several kinds into one ranking, scaling
// each kind by its weight. Scores are already relative to each kind's best.
func (r Ranking) Merge(lists map[Kind][]Scored) []Scored {
	size := 0
	for _, l := range lists {
		size += len(l)
	}
	out := make([]Scored, 0, size)
	for k, l := range lists {
		w := r.kindWeight(k)
		for _, s := range l {
			s.Score *= w
			out = append(out, s)
		}
	}
	sortScored(out)
	return out
}

// kindWeight is the weight Merge scales kind k's scores by.
func (r Ranking) kindWeight(k Kind) float64 {
	switch k {
	case KindSummary:
		return r.SummaryWeight
	case KindPrompt:
		return r.PromptWeight
	}
	return 1
}

// Words splits text into lower-case words the way the index does.
func Words(text string) []string {
	var out []string
	eachWord(text, func(w string) bool {
		out = append(out, w)
		return true
	})
	return out
}

// eachWord calls yield with each word of text as Words splits it, until
// yield returns false; it reports whether it reached the end.
func eachWord(text string, yield func(string) bool) bool {
	start := -1
	for i, r := range text {
		if isWordRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			if !yield(toLower(text[start:i])) {
				return false
			}
			start = -1
		}
	}
	if start >= 0 {
		return yield(toLower(text[start:]))
	}
	return true
}

func pow2(x float64) float64 { return math.Exp2(x) }
