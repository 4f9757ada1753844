package search

import (
	"context"
	"fmt"
	"strings"

	"github.com/memhq/mem/internal/memory"
)

// Snapshot is what a search reads, all from one read-only transaction of
// the store, the query's file filter resolved once: the ranking's Source,
// the listing of a query without text, and the records of the hits.
type Snapshot interface {
	Source
	// Touched reports whether some observation read or modified the
	// query's file (true when it names none).
	Touched() bool
	// Recent returns the n newest rows of kind k that pass q's filters,
	// newest first (ties: the higher id).
	Recent(ctx context.Context, q Query, k Kind, n int) ([]Candidate, error)
	// Hits returns the records of cands as hits, in their order, with no
	// score or snippet; a row that is gone is left out.
	Hits(ctx context.Context, cands []Candidate) ([]Hit, error)
}

// Store opens a Snapshot for a query and runs fn on it.
type Store[S Snapshot] interface {
	Searching(ctx context.Context, q Query, fn func(S) error) error
}

// Search finds observations, summaries and prompts for a query in db, best
// first, ranked by DefaultRanking. The text goes through Parse and never
// reaches MATCH as is; a query without text lists the newest rows that
// pass the filters.
func Search[S Snapshot](ctx context.Context, db Store[S], q Query) ([]Hit, error) {
	return SearchWith(ctx, db, q, DefaultRanking())
}

// SearchWith is Search ranked by r (the eval compares strategies through
// the same code path).
func SearchWith[S Snapshot](ctx context.Context, db Store[S], q Query, r Ranking) ([]Hit, error) {
	if err := checkQuery(&q); err != nil {
		return nil, err
	}
	plan := Parse(q.Text)
	var hits []Hit
	err := db.Searching(ctx, q, func(src S) error {
		var scored []Scored
		var err error
		switch {
		case !src.Touched():
			// no observation touched the file
		case strings.TrimSpace(q.Text) == "":
			scored, err = recent(ctx, src, q)
		case !plan.Empty():
			scored, err = Rank(ctx, src, q, plan, r)
		}
		if err != nil {
			return err
		}
		if q.Offset >= len(scored) {
			return nil
		}
		scored = scored[q.Offset:]
		if len(scored) > q.Limit {
			scored = scored[:q.Limit]
		}
		hits, err = loadHits(ctx, src, scored, plan.Words())
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("searching: %w", err)
	}
	return hits, nil
}

// checkQuery applies defaults and rejects a query that names no scope.
func checkQuery(q *Query) error {
	if q.Project == "" && !q.AllProjects && q.SessionID == "" {
		return memory.Invalid("project", "a project key, a session or all projects", "")
	}
	if q.AllProjects {
		q.Project = ""
	}
	if q.Limit < 0 || q.Offset < 0 {
		return memory.Invalid("limit", "a number >= 0", fmt.Sprint(q.Limit, q.Offset))
	}
	if q.Limit == 0 {
		q.Limit = DefaultLimit
	}
	if q.Limit+q.Offset > MaxLimit {
		return memory.Invalid("limit", fmt.Sprintf("limit + offset of at most %d", MaxLimit), fmt.Sprint(q.Limit+q.Offset))
	}
	// Types and files belong to observations only: asking for them means
	// observations unless kinds were named.
	if len(q.Kinds) == 0 && (len(q.Types) > 0 || q.File != "") {
		q.Kinds = []Kind{KindObservation}
	}
	return nil
}

// recent lists the newest rows of every wanted kind that pass the filters.
func recent(ctx context.Context, src Snapshot, q Query) ([]Scored, error) {
	var out []Scored
	for _, k := range Kinds() {
		if !q.Wants(k) {
			continue
		}
		cands, err := src.Recent(ctx, q, k, q.Limit+q.Offset)
		if err != nil {
			return nil, err
		}
		for _, c := range cands {
			out = append(out, Scored{Candidate: c})
		}
	}
	return Ranking{}.Merge(map[Kind][]Scored{"": out}), nil
}

// loadHits reads the records of the scored rows and makes hits with their
// scores and snippets.
func loadHits(ctx context.Context, src Snapshot, scored []Scored, words []string) ([]Hit, error) {
	type row struct {
		kind Kind
		id   int64
	}
	cands := make([]Candidate, len(scored))
	score := make(map[row]float64, len(scored))
	for i, s := range scored {
		cands[i] = s.Candidate
		score[row{s.Kind, s.ID}] = s.Score
	}
	hits, err := src.Hits(ctx, cands)
	if err != nil {
		return nil, err
	}
	for i, h := range hits {
		hits[i].Score = score[row{h.Kind, h.ID}]
		switch {
		case h.Observation != nil:
			hits[i].Snippet = Snippet(h.Observation.Body(), words, 20)
		case h.Summary != nil:
			hits[i].Snippet = Snippet(h.Summary.SearchText(), words, 20)
		case h.Prompt != nil:
			hits[i].Snippet = Snippet(h.Prompt.Text, words, 20)
		}
	}
	return hits, nil
}

// Searcher is SearchWith in one store, as a value: a feature that searches
// declares the method and is given one.
type Searcher interface {
	Search(ctx context.Context, q Query, r Ranking) ([]Hit, error)
}

// Over is the Searcher of db.
func Over[S Snapshot](db Store[S]) Searcher { return over[S]{db} }

type over[S Snapshot] struct{ db Store[S] }

func (o over[S]) Search(ctx context.Context, q Query, r Ranking) ([]Hit, error) {
	return SearchWith(ctx, o.db, q, r)
}
