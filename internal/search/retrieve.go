package search

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
)

// Rank scores the rows of every kind q wants for the plan, reading them
// from src, and merges them, best first: the full-text candidates of each
// kind (see candidates), then for observations the session, neighbour and
// date terms that Combine adds up.
func Rank(ctx context.Context, src Source, q Query, plan Plan, r Ranking) ([]Scored, error) {
	n := r.Candidates
	if n < q.Limit+q.Offset {
		n = q.Limit + q.Offset
	}
	units := plan.Units(MatchOptions{})
	lists := map[Kind][]Scored{}
	// The summaries a search lists are those that score sessions when no
	// date filters them (a summary is dated at its session's end): read once.
	var sums []Candidate
	shareSums := q.Wants(KindSummary) && q.Since.IsZero() && q.Until.IsZero()
	if shareSums {
		var err error
		if sums, err = candidates(ctx, src, q, KindSummary, units, r, n); err != nil {
			return nil, err
		}
	}
	for _, k := range Kinds() {
		if !q.Wants(k) || outranked(lists, r, k, q.Limit+q.Offset) {
			continue
		}
		var cands []Candidate
		var err error
		if k == KindSummary && shareSums {
			cands = sums
		} else if cands, err = candidates(ctx, src, q, k, units, r, n); err != nil {
			return nil, err
		}
		var sessions map[string]float64
		if k == KindObservation && r.SessionWeight > 0 {
			if shareSums {
				sessions = sessionsOf(sums, min(r.Candidates, 50))
			} else if sessions, err = sessionScores(ctx, src, q, units, r); err != nil {
				return nil, err
			}
			if cands, err = sessionMembers(ctx, src, q, sessions, r.SessionExpand, cands); err != nil {
				return nil, err
			}
		}
		if k == KindObservation && r.Neighbors > 0 && r.NeighborWeight > 0 {
			if cands, err = neighbors(ctx, src, q, r, cands); err != nil {
				return nil, err
			}
		}
		if k == KindObservation && r.DateWeight > 0 {
			if spans := Dates(q.Text); len(spans) > 0 {
				if cands, err = dated(ctx, src, q, r, spans, cands); err != nil {
					return nil, err
				}
			}
		}
		lists[k] = r.Combine(cands, sessions)
	}
	return r.Merge(lists), nil
}

// outranked reports whether the rows of kind k cannot reach the first
// need of the merged ranking, so need not be read: a summary or a prompt
// scores at most its kind's weight (its text score relative to its kind's
// best, nothing added), and need rows of the lists already scored score
// more. Observations, which get more than their text score, are always read.
func outranked(lists map[Kind][]Scored, r Ranking, k Kind, need int) bool {
	if k == KindObservation || need <= 0 {
		return false
	}
	above := 0
	for kind, l := range lists {
		w := r.kindWeight(kind)
		for _, s := range l {
			if s.Score*w > r.kindWeight(k) {
				above++
			}
		}
	}
	return above >= need
}

// columnWeights returns bm25's column weights for kind k: the ranking's for
// observations, equal weights for the others.
func columnWeights(r Ranking, k Kind) []float64 {
	if k == KindObservation {
		return r.Weights[:]
	}
	return nil
}

// candidates returns the n best rows of a kind for the OR of the units
// (quoted FTS5 strings), by bm25, among the rows that pass the filters.
//
// FTS5's bm25 reads the whole posting list of every phrase once per query
// to count the rows that have it, and then scores every matching row: on a
// large database a common word makes that slow. So each unit's newest
// r.Window rows are read first (row ids only, which is cheap). A unit with
// fewer rows is selective and goes to bm25 as usual. A common unit does not:
// its inverse document frequency is estimated from how far back its newest
// r.Window rows reach, and added to the score of those rows. Common words
// weigh little in bm25 anyway; an older row with a common word misses that
// small share, a mild preference for newer rows. When the filters leave
// fewer rows than the hits asked for (a date, project or type the newest
// rows miss), the share goes to the newest rows that pass them instead.
func candidates(ctx context.Context, src Source, q Query, k Kind, units []string, r Ranking, n int) ([]Candidate, error) {
	if len(units) == 0 {
		return nil, nil
	}
	weights := columnWeights(r, k)
	if r.Window <= 0 {
		return src.Match(ctx, q, k, strings.Join(units, " OR "), weights, n)
	}
	// Phrases (a camelCase word's parts, a path) are slow to find when their
	// words are common, so on a large database they only lift the rows the
	// words found; on a small one they are searched like words.
	var words, phrases []string
	for _, u := range units {
		if strings.Contains(u, " ") {
			phrases = append(phrases, u)
		} else {
			words = append(words, u)
		}
	}
	var selective []string
	common := map[string][]int64{}
	for _, u := range words {
		ids, err := src.Newest(ctx, k, u, r.Window)
		if err != nil {
			return nil, err
		}
		if len(ids) < r.Window {
			selective = append(selective, u)
		} else {
			common[u] = ids
		}
	}
	if len(common) == 0 {
		return src.Match(ctx, q, k, strings.Join(append(selective, phrases...), " OR "), weights, n)
	}
	lo, hi, err := src.IDRange(ctx, k)
	if err != nil {
		return nil, err
	}
	total := float64(hi - lo + 1)
	// Each common word's share is its estimated idf.
	weight := map[string]float64{}
	for u, ids := range common {
		weight[u] = idf(total, float64(len(ids))*total/float64(hi-ids[len(ids)-1]+1))
	}
	var out []Candidate
	if len(selective) > 0 {
		if out, err = src.Match(ctx, q, k, strings.Join(selective, " OR "), weights, 2*n); err != nil {
			return nil, err
		}
	}
	have := make(map[int64]bool, len(out))
	for _, c := range out {
		have[c.ID] = true
	}
	bonus := shares(words, weight, common)
	// Rows that have only common words: the best few that pass the filters.
	checked := best(bonus, have, n)
	extra, err := src.Filter(ctx, q, k, checked)
	if err != nil {
		return nil, err
	}
	if need := max(1, q.Limit+q.Offset); len(out)+len(extra) < need {
		// Too few pass: the filters hide the newest rows of the common
		// words, so their shares go to their newest rows that pass.
		ids, rows, err := newestInScope(ctx, src, q, k, common, need, checked, extra)
		if err != nil {
			return nil, err
		}
		bonus = shares(words, weight, ids)
		extra = extra[:0]
		for _, id := range best(bonus, have, n) {
			extra = append(extra, rows.get(id))
		}
	}
	for i := range out {
		out[i].BM25 -= bonus.get(out[i].ID)
	}
	for _, c := range extra {
		c.BM25 = -bonus.get(c.ID)
		out = append(out, c)
	}
	if err := phraseBonus(ctx, src, k, phrases, out, total); err != nil {
		return nil, err
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].BM25 < out[j].BM25 })
	if len(out) > n {
		out = out[:n]
	}
	return out, nil
}

// share is the weight a row gets from the common words it has.
type share struct {
	id     int64
	weight float64
}

// shareList is the shares of rows, by id: the rows of several thousand
// ids a common word brings cost a map a short process many fresh pages.
type shareList []share

// get returns the share of the row id, 0 when it has none.
func (l shareList) get(id int64) float64 {
	if i, ok := slices.BinarySearchFunc(l, id, func(s share, id int64) int { return cmp.Compare(s.id, id) }); ok {
		return l[i].weight
	}
	return 0
}

// shares adds up, per row, the weights of the common words whose rows
// (ids, by word) it is among, in the order of words: the words' rows are
// put one word after another and sorted by id keeping that order, so that
// a row's weights sit next to each other, the earlier word's first.
func shares(words []string, weight map[string]float64, ids map[string][]int64) shareList {
	size := 0
	for _, u := range words {
		size += len(ids[u])
	}
	if size == 0 {
		return nil
	}
	all := make(shareList, 0, size)
	for _, u := range words {
		for _, id := range ids[u] {
			all = append(all, share{id, weight[u]})
		}
	}
	slices.SortStableFunc(all, func(a, b share) int { return cmp.Compare(a.id, b.id) })
	out := all[:0] // folded in place: a row's entries are next to each other
	for _, s := range all {
		if n := len(out); n > 0 && out[n-1].id == s.id {
			out[n-1].weight += s.weight
			continue
		}
		out = append(out, s)
	}
	return out
}

// best returns the ids of the n rows with the highest bonus, leaving out
// those have holds, newer first among equals.
func best(bonus shareList, have map[int64]bool, n int) []int64 {
	rest := make([]share, 0, len(bonus))
	for _, s := range bonus {
		if !have[s.id] {
			rest = append(rest, s)
		}
	}
	if len(rest) > n && n > 0 {
		// Only the rows at or above the n-th highest share are sorted: the
		// shares alone sort much faster than the rows.
		ws := make([]float64, len(rest))
		for i, s := range rest {
			ws[i] = s.weight
		}
		slices.Sort(ws)
		cut, equal := ws[len(ws)-n], 0
		for _, w := range ws[len(ws)-n:] {
			if w == cut {
				equal++
			}
		}
		top := make([]share, 0, n)
		for i := len(rest) - 1; i >= 0; i-- { // by id, newest first
			switch s := rest[i]; {
			case s.weight > cut:
				top = append(top, s)
			case s.weight == cut && equal > 0:
				top = append(top, s)
				equal--
			}
		}
		rest = top
	}
	slices.SortFunc(rest, func(a, b share) int {
		if c := cmp.Compare(b.weight, a.weight); c != 0 {
			return c
		}
		return cmp.Compare(b.id, a.id)
	})
	ids := make([]int64, min(n, len(rest)))
	for i := range ids {
		ids[i] = rest[i].id
	}
	return ids
}

// candidateList is candidates by id, each once.
type candidateList []Candidate

// byID sorts cands by id and keeps one of each.
func byID(cands []Candidate) candidateList {
	slices.SortStableFunc(cands, func(a, b Candidate) int { return cmp.Compare(a.ID, b.ID) })
	return slices.CompactFunc(cands, func(a, b Candidate) bool { return a.ID == b.ID })
}

// get returns the candidate of the row id, the zero one when it is not
// among them.
func (l candidateList) get(id int64) Candidate {
	if i, ok := slices.BinarySearchFunc(l, id, func(c Candidate, id int64) int { return cmp.Compare(c.ID, id) }); ok {
		return l[i]
	}
	return Candidate{}
}

// newestInScope returns, for each common unit (with the ids of its newest
// window rows overall), the ids of the rows among them that pass the
// filters, newest first, and those rows; of the ids checked, those passed
// are known to pass. When fewer than need pass (a date, project or other
// filter that the newest rows miss), the unit's older rows that pass are
// read until need of them are found, none are left or scopeWalkRows of
// them were looked at: a filter hides no older row that passes it among
// those, and the walk's cost does not grow with the table (README).
// scopeWalkRows bounds how many older rows of one common word
// newestInScope looks at, per word and kind.
const scopeWalkRows = 4000

func newestInScope(ctx context.Context, src Source, q Query, k Kind, common map[string][]int64, need int, checked []int64, passed []Candidate) (map[string][]int64, candidateList, error) {
	size := 0
	for _, window := range common {
		size += len(window)
	}
	ids := make([]int64, 0, size)
	for _, window := range common {
		ids = append(ids, window...)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	done := slices.Clone(checked)
	slices.Sort(done)
	ids = slices.DeleteFunc(ids, func(id int64) bool {
		_, found := slices.BinarySearch(done, id)
		return found
	})
	pass, err := src.Filter(ctx, q, k, ids)
	if err != nil {
		return nil, nil, err
	}
	rows := byID(slices.Concat(pass, passed))
	known := len(rows)
	out := make(map[string][]int64, len(common))
	for u, window := range common {
		in := make([]int64, 0, max(len(window), need))
		for _, id := range window {
			if _, ok := slices.BinarySearchFunc(rows[:known], id, func(c Candidate, id int64) int { return cmp.Compare(c.ID, id) }); ok {
				in = append(in, id)
			}
		}
		if len(in) < need {
			older, err := src.NewestIn(ctx, q, k, u, window[len(window)-1], need-len(in), scopeWalkRows)
			if err != nil {
				return nil, nil, err
			}
			for _, c := range older {
				in = append(in, c.ID)
			}
			rows = append(rows, older...)
		}
		out[u] = in
	}
	if len(rows) > known {
		rows = byID(rows)
	}
	return out, rows, nil
}

// phraseBonus adds to each of the best candidates that has a phrase the
// phrase's idf, estimated from how many of them have it. The phrases are
// checked on the rows' text: asking FTS5 for a phrase of common words reads
// their whole position lists.
func phraseBonus(ctx context.Context, src Source, k Kind, phrases []string, cands []Candidate, total float64) error {
	if len(phrases) == 0 || len(cands) == 0 {
		return nil
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].BM25 < cands[j].BM25 })
	top := cands[:min(len(cands), 50)]
	texts, err := src.Texts(ctx, k, candidateIDs(top))
	if err != nil {
		return err
	}
	split := make([]PhraseText, len(top))
	for i, c := range top {
		split[i] = NewPhraseText(texts[c.ID])
	}
	for _, ph := range phrases {
		words := strings.Fields(strings.Trim(ph, `"*`))
		var has []int
		for i := range top {
			if split[i].Has(words) {
				has = append(has, i)
			}
		}
		w := idf(total, float64(len(has)))
		for _, i := range has {
			top[i].BM25 -= w
		}
	}
	return nil
}

// idf is the bm25 inverse document frequency of a term found in df of
// total rows, kept above zero so that a common term still counts a little.
func idf(total, df float64) float64 {
	return math.Max(1e-6, math.Log((total-df+0.5)/(df+0.5)))
}

// candidateIDs returns the ids of cands, in order.
func candidateIDs(cands []Candidate) []int64 {
	ids := make([]int64, len(cands))
	for i, c := range cands {
		ids[i] = c.ID
	}
	return ids
}

// indexByID maps the id of each of cands to its position.
func indexByID(cands []Candidate) map[int64]int {
	idx := make(map[int64]int, len(cands))
	for i, c := range cands {
		idx[c.ID] = i
	}
	return idx
}

// addNew appends to cands those of more whose ids idx does not hold yet,
// recording their positions in idx.
func addNew(cands []Candidate, idx map[int64]int, more []Candidate) []Candidate {
	for _, c := range more {
		if _, ok := idx[c.ID]; !ok {
			idx[c.ID] = len(cands)
			cands = append(cands, c)
		}
	}
	return cands
}

// bestSessions returns the ids of the n sessions with the best (lowest) bm25.
func bestSessions(sessions map[string]float64, n int) []string {
	ids := make([]string, 0, len(sessions))
	for s := range sessions {
		ids = append(ids, s)
	}
	sort.Slice(ids, func(i, j int) bool {
		if sessions[ids[i]] != sessions[ids[j]] {
			return sessions[ids[i]] < sessions[ids[j]]
		}
		return ids[i] < ids[j]
	})
	if len(ids) > n {
		ids = ids[:n]
	}
	return ids
}

// sessionScores returns, per session of the scope, the bm25 of its summary
// for the query: of the summaries a listing of them reads (as many as for
// observations, so that enough pass the filters without reading further
// back), the best 50 (at most r.Candidates).
func sessionScores(ctx context.Context, src Source, q Query, units []string, r Ranking) (map[string]float64, error) {
	q.Since, q.Until = time.Time{}, time.Time{} // a session's summary is dated at its end
	sums, err := candidates(ctx, src, q, KindSummary, units, r, max(r.Candidates, q.Limit+q.Offset))
	if err != nil {
		return nil, fmt.Errorf("scoring session summaries: %w", err)
	}
	return sessionsOf(sums, min(r.Candidates, 50)), nil
}

// sessionsOf maps the session of each of the n best summary candidates to
// its bm25; among equals the newer summaries, whatever order the filters
// returned them in.
func sessionsOf(sums []Candidate, n int) map[string]float64 {
	best := slices.Clone(sums)
	slices.SortStableFunc(best, func(a, b Candidate) int {
		if c := cmp.Compare(a.BM25, b.BM25); c != 0 {
			return c
		}
		return cmp.Compare(b.ID, a.ID)
	})
	out := make(map[string]float64, min(n, len(best)))
	for _, c := range best[:min(n, len(best))] {
		out[c.Session] = c.BM25
	}
	return out
}

// sessionMembers adds the observations of the n best-scored sessions that
// pass the filters and are not candidates yet, with no text score of their
// own (at most 500 per session).
func sessionMembers(ctx context.Context, src Source, q Query, sessions map[string]float64, n int, cands []Candidate) ([]Candidate, error) {
	if n <= 0 || len(sessions) == 0 {
		return cands, nil
	}
	idx := indexByID(cands)
	for _, sid := range bestSessions(sessions, n) {
		q.SessionID = sid
		members, err := src.Oldest(ctx, q, 500)
		if err != nil {
			return nil, fmt.Errorf("reading observations of session %s: %w", sid, err)
		}
		cands = addNew(cands, idx, members)
	}
	return cands, nil
}

// neighbors gives the observations just before and after each of the best
// rows in its session that row's text score as their Neighbor score, adding
// those not yet among the candidates.
func neighbors(ctx context.Context, src Source, q Query, r Ranking, cands []Candidate) ([]Candidate, error) {
	top := make([]Candidate, 0, r.NeighborDocs)
	for _, c := range cands {
		if c.BM25 < 0 && len(top) < r.NeighborDocs {
			top = append(top, c)
		}
	}
	idx := indexByID(cands)
	for _, c := range top {
		near, err := src.Neighbours(ctx, q, c, r.Neighbors)
		if err != nil {
			return nil, err
		}
		cands = addNew(cands, idx, near)
		for _, n := range near {
			if i := idx[n.ID]; c.BM25 < cands[i].Neighbor {
				cands[i].Neighbor = c.BM25
			}
		}
	}
	return cands, nil
}

// dated scores candidates by how well their dates fit the dates the query
// names, first adding up to r.DateExpand rows from each named day.
func dated(ctx context.Context, src Source, q Query, r Ranking, spans []Span, cands []Candidate) ([]Candidate, error) {
	idx := indexByID(cands)
	for _, s := range spans {
		if r.DateExpand <= 0 || s.Precision < 1 {
			continue
		}
		day := q
		if day.Since.Before(s.From) {
			day.Since = s.From
		}
		if day.Until.IsZero() || day.Until.After(s.To) {
			day.Until = s.To
		}
		rows, err := src.Oldest(ctx, day, r.DateExpand)
		if err != nil {
			return nil, fmt.Errorf("reading observations of %s: %w", s.From.Format("2006-01-02"), err)
		}
		cands = addNew(cands, idx, rows)
	}
	for i := range cands {
		cands[i].DateFit = DateScore(cands[i].Date, spans, r.DateWindow)
	}
	return cands, nil
}
