package search

import "context"

// Source is what the ranking reads from the database, all in one read-only
// snapshot. Methods that take a query return only the rows that pass its
// filters (project, session, dates, types, file), as candidates carrying
// their kind, id, session and date.
type Source interface {
	// Match returns the n rows of kind k with the lowest bm25 for the FTS5
	// expression match (ties: the higher id first). weights are bm25's
	// column weights; none means equal weights.
	Match(ctx context.Context, q Query, k Kind, match string, weights []float64, n int) ([]Candidate, error)
	// Newest returns the ids of the n newest rows of kind k that match the
	// FTS5 string unit, newest first, whatever the filters.
	Newest(ctx context.Context, k Kind, unit string, n int) ([]int64, error)
	// NewestIn returns the n newest rows of kind k that match the FTS5
	// string unit, have an id below before and pass the filters, newest
	// first, looking only at the budget newest rows of unit below before.
	NewestIn(ctx context.Context, q Query, k Kind, unit string, before int64, n, budget int) ([]Candidate, error)
	// IDRange returns the lowest and highest id of kind k (0, 0 when empty).
	IDRange(ctx context.Context, k Kind) (lo, hi int64, err error)
	// Filter returns the rows among ids that pass the filters, in no set order.
	Filter(ctx context.Context, q Query, k Kind, ids []int64) ([]Candidate, error)
	// Oldest returns the first n observations that pass the filters,
	// oldest first (ties: the lower id).
	Oldest(ctx context.Context, q Query, n int) ([]Candidate, error)
	// Neighbours returns up to n observations of c's session just before c,
	// nearest first, then up to n just after it, nearest first.
	Neighbours(ctx context.Context, q Query, c Candidate, n int) ([]Candidate, error)
	// Texts returns the searchable text of rows of kind k by id.
	Texts(ctx context.Context, k Kind, ids []int64) (map[int64]string, error)
}
