package search

import (
	"context"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// fakeRow is a row of fakeSource: its text is its words.
type fakeRow struct {
	kind    Kind
	id      int64
	session string
	at      time.Time
	text    string
}

// fakeSource serves rows from memory: a row matches a quoted unit when its
// text has the unit's words in a row, and its "bm25" is minus the number of
// units it matches. It keeps the MATCH expressions it was asked.
type fakeSource struct {
	rows    []fakeRow
	matched []string
}

func (f *fakeSource) has(r fakeRow, unit string) bool {
	return HasPhrase(r.text, strings.Fields(strings.Trim(unit, `"`)))
}

func (f *fakeSource) passes(q Query, k Kind, r fakeRow) bool {
	return r.kind == k && (q.SessionID == "" || r.session == q.SessionID) &&
		(q.Since.IsZero() || !r.at.Before(q.Since)) && (q.Until.IsZero() || r.at.Before(q.Until))
}

func (f *fakeSource) cand(r fakeRow) Candidate {
	return Candidate{Kind: r.kind, ID: r.id, Session: r.session, Date: r.at}
}

func (f *fakeSource) Match(_ context.Context, q Query, k Kind, match string, _ []float64, n int) ([]Candidate, error) {
	f.matched = append(f.matched, match)
	var out []Candidate
	for _, r := range f.rows {
		score := 0.0
		for _, u := range strings.Split(match, " OR ") {
			if f.has(r, u) {
				score--
			}
		}
		if score < 0 && f.passes(q, k, r) {
			c := f.cand(r)
			c.BM25 = score
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].BM25 != out[j].BM25 {
			return out[i].BM25 < out[j].BM25
		}
		return out[i].ID > out[j].ID
	})
	return out[:min(n, len(out))], nil
}

func (f *fakeSource) Newest(_ context.Context, k Kind, unit string, n int) ([]int64, error) {
	var ids []int64
	for _, r := range f.rows {
		if r.kind == k && f.has(r, unit) {
			ids = append(ids, r.id)
		}
	}
	slices.Sort(ids)
	slices.Reverse(ids)
	return ids[:min(n, len(ids))], nil
}

func (f *fakeSource) IDRange(_ context.Context, k Kind) (lo, hi int64, err error) {
	for _, r := range f.rows {
		if r.kind == k {
			if lo == 0 || r.id < lo {
				lo = r.id
			}
			hi = max(hi, r.id)
		}
	}
	return lo, hi, nil
}

func (f *fakeSource) NewestIn(_ context.Context, q Query, k Kind, unit string, before int64, n, budget int) ([]Candidate, error) {
	var walk []fakeRow
	for _, r := range f.rows {
		if r.id < before && f.has(r, unit) {
			walk = append(walk, r)
		}
	}
	sort.Slice(walk, func(i, j int) bool { return walk[i].id > walk[j].id })
	var out []Candidate
	for _, r := range walk[:min(budget, len(walk))] {
		if f.passes(q, k, r) {
			out = append(out, f.cand(r))
		}
	}
	return out[:min(n, len(out))], nil
}

func (f *fakeSource) Filter(_ context.Context, q Query, k Kind, ids []int64) ([]Candidate, error) {
	var out []Candidate
	for _, r := range f.rows {
		if slices.Contains(ids, r.id) && f.passes(q, k, r) {
			out = append(out, f.cand(r))
		}
	}
	return out, nil
}

// observations returns the observations that pass q, oldest first.
func (f *fakeSource) observations(q Query) []Candidate {
	var out []Candidate
	for _, r := range f.rows {
		if f.passes(q, KindObservation, r) {
			out = append(out, f.cand(r))
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Date.Equal(out[j].Date) {
			return out[i].Date.Before(out[j].Date)
		}
		return out[i].ID < out[j].ID
	})
	return out
}

func (f *fakeSource) Oldest(_ context.Context, q Query, n int) ([]Candidate, error) {
	all := f.observations(q)
	return all[:min(n, len(all))], nil
}

func (f *fakeSource) Neighbours(_ context.Context, q Query, c Candidate, n int) ([]Candidate, error) {
	q.SessionID = c.Session
	all := f.observations(q)
	i := slices.IndexFunc(all, func(x Candidate) bool { return x.ID == c.ID })
	var out []Candidate
	for j := i - 1; j >= 0 && j >= i-n; j-- {
		out = append(out, all[j])
	}
	for j := i + 1; j < len(all) && j <= i+n; j++ {
		out = append(out, all[j])
	}
	return out, nil
}

func (f *fakeSource) Texts(_ context.Context, k Kind, ids []int64) (map[int64]string, error) {
	out := map[int64]string{}
	for _, r := range f.rows {
		if r.kind == k && slices.Contains(ids, r.id) {
			out[r.id] = r.text
		}
	}
	return out, nil
}

var day0 = time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)

// obs makes observation id of session s, h hours after day0.
func obs(id int64, s string, h int, text string) fakeRow {
	return fakeRow{KindObservation, id, s, day0.Add(time.Duration(h) * time.Hour), text}
}

func TestRankDecisions(t *testing.T) {
	// Three sessions; only session b's summary is about deploys. Observation
	// 5 shares no word with "deploy rollback" but sits in session b, right
	// after 4, the best match.
	base := []fakeRow{
		obs(1, "a", 0, "cache warmup job"),
		obs(2, "a", 1, "deploy script moved"),
		obs(3, "b", 24, "database index added"),
		obs(4, "b", 25, "deploy rollback failed"),
		obs(5, "b", 26, "pinned the old image tag"),
		obs(6, "c", 48, "lunch order"),
		{KindSummary, 7, "b", day0.Add(27 * time.Hour), "deploy rollback broke and was fixed"},
		{KindSummary, 8, "a", day0.Add(2 * time.Hour), "cache work"},
	}
	tests := []struct {
		name  string
		text  string
		since time.Time
		until time.Time
		tweak func(*Ranking)
		want  []int64 // the hits' ids, best first
	}{
		{"session, neighbour and date terms off: text only", "deploy rollback", time.Time{}, time.Time{},
			func(r *Ranking) { r.SessionWeight, r.NeighborWeight, r.DateWeight = 0, 0, 0 }, []int64{4, 2}},
		// 3 and 5 join as 4's neighbours (0.3 × 4's score), 1 as 2's (0.3 × half).
		{"neighbours lend their score", "deploy rollback", time.Time{}, time.Time{},
			func(r *Ranking) { r.SessionWeight, r.DateWeight = 0, 0 }, []int64{4, 2, 5, 3, 1}},
		// Session b's summary matches best: its rows 3 and 5 join and pass 2,
		// which has a query word but a session about something else.
		{"the best session's observations join", "deploy rollback", time.Time{}, time.Time{},
			func(r *Ranking) { r.NeighborWeight = 0 }, []int64{4, 5, 3, 2}},
		// No row has a query word: 6 comes from the day the query names.
		{"a named day brings its rows", "what happened on 3 March 2025", time.Time{}, time.Time{},
			nil, []int64{6}},
		// 6 has "lunch" and is from 3 March, but after the query's end.
		{"a named day stays inside the query's dates", "lunch on 2 March 2025 or 3 March 2025",
			time.Time{}, day0.Add(40 * time.Hour), nil, []int64{5, 4, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := DefaultRanking()
			if tt.tweak != nil {
				tt.tweak(&r)
			}
			q := Query{Text: tt.text, Project: "p", Kinds: []Kind{KindObservation}, Limit: 10,
				Since: tt.since, Until: tt.until}
			got, err := Rank(context.Background(), &fakeSource{rows: base}, q, Parse(tt.text), r)
			if err != nil {
				t.Fatal(err)
			}
			ids := make([]int64, len(got))
			for i, s := range got {
				ids[i] = s.ID
			}
			if !reflect.DeepEqual(ids, tt.want) {
				t.Errorf("Rank(%q) = %v, want %v", tt.text, ids, tt.want)
			}
		})
	}
}

func TestCandidatesWindow(t *testing.T) {
	// "deploy" is in 6 rows, "rollback" in 2: with a window of 4, deploy is
	// common and never reaches MATCH, but still lifts its newest 4 rows.
	var rows []fakeRow
	for i := int64(1); i <= 6; i++ {
		rows = append(rows, obs(i, "a", int(i), "deploy step"))
	}
	rows = append(rows, obs(7, "a", 7, "rollback deploy"), obs(8, "a", 8, "rollback only"))
	tests := []struct {
		window  int
		text    string
		until   time.Time
		matched []string
		want    []int64
	}{
		{0, "deploy rollback", time.Time{}, []string{`"deploy" OR "rollback"`}, []int64{7, 8, 6, 5, 4, 3, 2, 1}},
		{100, "deploy rollback", time.Time{}, []string{`"deploy" OR "rollback"`}, []int64{7, 8, 6, 5, 4, 3, 2, 1}},
		// Then the rows with only the common word, in the order Filter gave them.
		{4, "deploy rollback", time.Time{}, []string{`"rollback"`}, []int64{7, 8, 4, 5, 6}},
		// The common word's newest rows are after the query's end: its
		// newest rows before the end take their place.
		{4, "deploy", day0.Add(3 * time.Hour), nil, []int64{2, 1}},
		{4, "deploy rollback", day0.Add(3 * time.Hour), []string{`"rollback"`}, []int64{2, 1}},
	}
	for _, tt := range tests {
		src := &fakeSource{rows: rows}
		r := DefaultRanking()
		r.Window = tt.window
		got, err := candidates(context.Background(), src, Query{Project: "p", Until: tt.until, Limit: 3}, KindObservation,
			Parse(tt.text).Units(MatchOptions{}), r, 10)
		if err != nil {
			t.Fatal(err)
		}
		ids := candidateIDs(got)
		if !reflect.DeepEqual(ids, tt.want) || !reflect.DeepEqual(src.matched, tt.matched) {
			t.Errorf("window %d, %q until %v: candidates %v after MATCH %q, want %v after %q",
				tt.window, tt.text, tt.until, ids, src.matched, tt.want, tt.matched)
		}
	}
}

func TestCandidatesReadBackPastFilteredRows(t *testing.T) {
	// "deploy" is in 40 rows: 1-20 of session a, 21-40 of session b. With a
	// window of 4, the newest 4 are all of b; for session a the rows are
	// read further back until as many of a as the hits asked for are found.
	var rows []fakeRow
	for i := int64(1); i <= 40; i++ {
		s := "a"
		if i > 20 {
			s = "b"
		}
		rows = append(rows, obs(i, s, int(i), "deploy step"))
	}
	r := DefaultRanking()
	r.Window = 4
	for _, tt := range []struct {
		limit int
		want  []int64
	}{
		{5, []int64{20, 19, 18, 17, 16}},
		{10, []int64{20, 19, 18, 17, 16, 15, 14, 13, 12, 11}},
	} {
		got, err := candidates(context.Background(), &fakeSource{rows: rows}, Query{SessionID: "a", Limit: tt.limit},
			KindObservation, Parse("deploy").Units(MatchOptions{}), r, 50)
		if err != nil {
			t.Fatal(err)
		}
		ids := candidateIDs(got)
		if !reflect.DeepEqual(ids, tt.want) {
			t.Errorf("limit %d: candidates %v, want %v", tt.limit, ids, tt.want)
		}
	}
}

func TestSessionsOfKeepsTheNewestAmongEquals(t *testing.T) {
	// Filters return rows in their own order (the store: by id); the
	// sessions scored are the best summaries, the newer among equals.
	sums := []Candidate{
		{ID: 1, Session: "s1", BM25: -2}, {ID: 2, Session: "s2", BM25: -2},
		{ID: 3, Session: "s3", BM25: -2}, {ID: 4, Session: "s4", BM25: -1},
		{ID: 5, Session: "s5", BM25: -3},
	}
	got := sessionsOf(sums, 3)
	want := map[string]float64{"s5": -3, "s3": -2, "s2": -2}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("sessionsOf = %v, want %v", got, want)
	}
}

func TestRankSkipsKindsThatCannotPlace(t *testing.T) {
	// Three observations match fully (score 1); a prompt scores at most the
	// prompt weight (0.6), so with two hits asked for it cannot place and
	// prompts are not read; with five, it is the fourth.
	rows := []fakeRow{
		obs(1, "a", 1, "deploy step"), obs(2, "a", 2, "deploy again"), obs(3, "a", 3, "deploy done"),
		{KindPrompt, 4, "a", day0.Add(4 * time.Hour), "deploy please"},
	}
	for _, tt := range []struct {
		limit int
		want  []int64
	}{{2, []int64{3, 2, 1}}, {5, []int64{3, 2, 1, 4}}} {
		src := &fakeSource{rows: rows}
		got, err := Rank(context.Background(), src, Query{Text: "deploy", Project: "p", Limit: tt.limit}, Parse("deploy"), DefaultRanking())
		if err != nil {
			t.Fatal(err)
		}
		ids := make([]int64, len(got))
		for i, s := range got {
			ids[i] = s.ID
		}
		if !reflect.DeepEqual(ids, tt.want) {
			t.Errorf("limit %d: Rank = %v, want %v", tt.limit, ids, tt.want)
		}
	}
}

// TestSharesAddUpInTheOrderOfWords: each row gets the weights of the words
// whose rows it is among, added in the order of the words (floating-point
// sums depend on it), whatever order a word's rows come in; best then ranks
// the rows by share, newer first among equals, leaving out those it has.
func TestSharesAddUpInTheOrderOfWords(t *testing.T) {
	words := []string{"a", "b", "c", "d", "e"}
	weight := map[string]float64{"a": 0.1, "b": 0.2, "c": 0.3, "d": 1e-17, "e": 0.7}
	ids := map[string][]int64{"a": {9, 5, 3, 1}, "b": {4, 3}, "c": {2, 5}, "e": {9, 8, 3}}
	want := map[int64]float64{}
	for _, u := range words {
		for _, id := range ids[u] {
			want[id] += weight[u]
		}
	}
	got := shares(words, weight, ids)
	if len(got) != len(want) {
		t.Fatalf("shares = %v, want %v", got, want)
	}
	for i, s := range got {
		if i > 0 && got[i-1].id >= s.id {
			t.Fatalf("shares not by id: %v", got)
		}
		if s.weight != want[s.id] || got.get(s.id) != want[s.id] {
			t.Errorf("share of %d = %v (get %v), want %v", s.id, s.weight, got.get(s.id), want[s.id])
		}
	}
	if got.get(7) != 0 {
		t.Errorf("share of a row of no word = %v, want 0", got.get(7))
	}
	if b := best(got, map[int64]bool{3: true}, 3); !slices.Equal(b, []int64{9, 8, 5}) {
		t.Errorf("best = %v, want [9 8 5]", b)
	}
	ties := shareList{{1, 0.5}, {2, 0.5}, {3, 0.5}, {4, 0.9}, {5, 0.1}, {6, 0.5}}
	for n, want := range map[int][]int64{1: {4}, 2: {4, 6}, 3: {4, 6, 3}, 5: {4, 6, 3, 2, 1}, 6: {4, 6, 3, 2, 1, 5}, 9: {4, 6, 3, 2, 1, 5}} {
		if b := best(ties, nil, n); !slices.Equal(b, want) {
			t.Errorf("best of %d among equal shares = %v, want %v", n, b, want)
		}
	}
}
