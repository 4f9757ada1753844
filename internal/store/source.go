package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/jmoiron/sqlx"

	"github.com/memhq/mem/internal/memory"
)

// Snapshot is what a search reads (search.Snapshot), from one read-only
// transaction: the SQL the ranking is built from.
type Snapshot struct {
	tx   *sqlx.Tx
	base scope // the searched query, its file resolved
	// stmts prepares each statement once: a search runs the same few
	// for every word and every top row.
	stmts *stmtCache
	spans map[memory.Kind][2]int64 // IDRange's answers, read once
}

// newSnapshot reads from tx for the query sc.
func newSnapshot(tx *sqlx.Tx, sc scope) *Snapshot {
	return &Snapshot{tx: tx, base: sc, stmts: newStmtCache(tx)}
}

// scope returns q with its file filter resolved, reusing the searched
// query's ids when q names the same file.
func (s *Snapshot) scope(ctx context.Context, q memory.Query) (scope, error) {
	if q.File == s.base.File {
		return scope{Query: q, fileIDs: s.base.fileIDs}, nil
	}
	return resolveScope(ctx, s.tx, q)
}

// Touched reports whether some observation read or modified the query's
// file (true when it names none).
func (s *Snapshot) Touched() bool { return s.base.File == "" || s.base.fileIDs != "[]" }

func (s *Snapshot) Match(ctx context.Context, q memory.Query, k memory.Kind, match string, weights []float64, n int) ([]memory.Candidate, error) {
	sc, err := s.scope(ctx, q)
	if err != nil {
		return nil, err
	}
	kt := kindTable(k)
	where, args := filter(sc, k, "t")
	bm := "bm25(" + kt.fts
	for _, w := range weights {
		bm += ", " + fmt.Sprint(w)
	}
	bm += ")"
	sqlText := `SELECT t.id, t.session_id, t.created_at, ` + bm + ` AS score
		FROM ` + kt.fts + ` JOIN ` + kt.table + ` t ON t.id = ` + kt.fts + `.rowid
		WHERE ` + kt.fts + ` MATCH ? AND ` + where + ` ORDER BY score, t.id DESC` + limit(n)
	rows, err := s.stmts.QueryContext(ctx, sqlText, append([]any{match}, args...)...)
	if err != nil {
		return nil, fmt.Errorf("full-text search of %s: %w", kt.table, err)
	}
	return candidateRows(rows, k, true)
}

func (s *Snapshot) Newest(ctx context.Context, k memory.Kind, unit string, n int) ([]int64, error) {
	kt := kindTable(k)
	// One row of comma-separated ids: a search reads a few thousand of
	// them, and a row each through database/sql cost more than the index.
	var list sql.NullString
	rows, err := s.stmts.QueryContext(ctx, `SELECT group_concat(id) FROM (SELECT rowid AS id FROM `+kt.fts+`
		WHERE `+kt.fts+` MATCH ? ORDER BY rowid DESC`+limit(n)+`)`, unit)
	if err == nil {
		err = scanOne(rows, &list)
	}
	if err != nil {
		return nil, fmt.Errorf("full-text search of %s: %w", kt.table, err)
	}
	ids, err := parseIDs(list.String)
	// group_concat keeps the subquery's order in SQLite as it is, which
	// SQLite does not promise: newest first is made sure of here.
	slices.SortFunc(ids, func(a, b int64) int { return cmp.Compare(b, a) })
	return ids, err
}

// scanOne scans the one row of rows into dest and closes them.
func scanOne(rows *sql.Rows, dest ...any) error {
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return sql.ErrNoRows
	}
	if err := rows.Scan(dest...); err != nil {
		return err
	}
	return rows.Close()
}

// parseIDs reads the ids of a comma-separated list, in order.
func parseIDs(list string) ([]int64, error) {
	if list == "" {
		return nil, nil
	}
	ids := make([]int64, 0, strings.Count(list, ",")+1)
	for f := range strings.SplitSeq(list, ",") {
		id, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("reading id %q: %w", f, err)
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// NewestIn walks the unit's newest budget rows from before down (the
// full-text index read in rowid order, stopping after budget rows) and
// keeps the first n that pass the filters. With an end date, the walk
// starts below the newest row of any word that passes the filters: every
// row above it fails them, however many there are.
func (s *Snapshot) NewestIn(ctx context.Context, q memory.Query, k memory.Kind, unit string, before int64, n, budget int) ([]memory.Candidate, error) {
	sc, err := s.scope(ctx, q)
	if err != nil {
		return nil, err
	}
	kt := kindTable(k)
	where, args := filter(sc, k, "t")
	if !sc.Until.IsZero() {
		var top int64
		if err := s.tx.GetContext(ctx, &top, `SELECT coalesce((SELECT t.id FROM `+kt.table+` t WHERE `+where+`
			ORDER BY t.id DESC LIMIT 1), 0)`, args...); err != nil {
			return nil, fmt.Errorf("reading %s ids: %w", kt.table, err)
		}
		before = min(before, top+1)
	}
	rows, err := s.stmts.QueryContext(ctx, `SELECT t.id, t.session_id, t.created_at
		FROM (SELECT rowid AS id FROM `+kt.fts+` WHERE `+kt.fts+` MATCH ? AND rowid < ? ORDER BY rowid DESC`+limit(budget)+`) w
		CROSS JOIN `+kt.table+` t ON t.id = w.id
		WHERE `+where+` ORDER BY w.id DESC`+limit(n),
		append([]any{unit, before}, args...)...)
	if err != nil {
		return nil, fmt.Errorf("full-text search of %s: %w", kt.table, err)
	}
	return candidateRows(rows, k, false)
}

func (s *Snapshot) IDRange(ctx context.Context, k memory.Kind) (lo, hi int64, err error) {
	if s.spans == nil {
		// Every kind's at once, in one statement: a search asks for each.
		var v [6]int64
		rows, err := s.stmts.QueryContext(ctx, `SELECT
			coalesce((SELECT min(id) FROM observations), 0), coalesce((SELECT max(id) FROM observations), 0),
			coalesce((SELECT min(id) FROM summaries), 0), coalesce((SELECT max(id) FROM summaries), 0),
			coalesce((SELECT min(id) FROM prompts), 0), coalesce((SELECT max(id) FROM prompts), 0)`)
		if err == nil {
			err = scanOne(rows, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5])
		}
		if err != nil {
			return 0, 0, fmt.Errorf("reading ids: %w", err)
		}
		s.spans = map[memory.Kind][2]int64{memory.KindObservation: {v[0], v[1]},
			memory.KindSummary: {v[2], v[3]}, memory.KindPrompt: {v[4], v[5]}}
	}
	span := s.spans[k]
	return span[0], span[1], nil
}

// maxMask bounds the mask of ids Filter checks an index walk against.
const maxMask = 1 << 16

func (s *Snapshot) Filter(ctx context.Context, q memory.Query, k memory.Kind, ids []int64) ([]memory.Candidate, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	sc, err := s.scope(ctx, q)
	if err != nil {
		return nil, err
	}
	kt := kindTable(k)
	where, args := filter(sc, k, "t")
	// Each id is looked up in the table, whose rows are read for the
	// filters: cheap for observations and prompts, whose candidates are
	// mostly recent rows, neighbours in the file. A summary row is long (a
	// page each) and a project has one per session: its summaries are found
	// in the project's index, and only those among ids are read.
	access := "NOT INDEXED"
	if k == memory.KindSummary && sc.Project != "" {
		access = "INDEXED BY summaries_project_created"
	}
	lo, hi := slices.Min(ids), slices.Max(ids)
	// Dense ids (a common word's newest rows): one walk through the table
	// from the lowest to the highest costs less than a lookup from the root
	// for each. Either walk, the table's or the index's, checks the rows it
	// finds against a mask of one byte per id from the lowest, cheaper than
	// a list of the ids; the rows not among them are not read into Go.
	walk := access == "NOT INDEXED" && hi-lo < 2*int64(len(ids))
	if walk || (access != "NOT INDEXED" && hi-lo < maxMask) {
		mask := make([]byte, hi-lo+1)
		for _, id := range ids {
			mask[id-lo] = 1
		}
		rows, err := s.stmts.QueryContext(ctx, `SELECT t.id, t.session_id, t.created_at FROM `+kt.table+` t `+access+`
			WHERE t.id BETWEEN ? AND ? AND substr(?, t.id - ? + 1, 1) = x'01' AND `+where, append([]any{lo, hi, mask, lo}, args...)...)
		if err != nil {
			return nil, fmt.Errorf("filtering %s: %w", kt.table, err)
		}
		return candidateRows(rows, k, false)
	}
	// The ids go as one JSON array: there may be more than SQLite takes
	// parameters.
	rows, err := s.stmts.QueryContext(ctx, `SELECT t.id, t.session_id, t.created_at FROM `+kt.table+` t `+access+`
		WHERE t.id IN (SELECT value FROM json_each(?)) AND `+where, append([]any{encodeIDs(ids)}, args...)...)
	if err != nil {
		return nil, fmt.Errorf("filtering %s: %w", kt.table, err)
	}
	return candidateRows(rows, k, false)
}

func (s *Snapshot) Oldest(ctx context.Context, q memory.Query, n int) ([]memory.Candidate, error) {
	sc, err := s.scope(ctx, q)
	if err != nil {
		return nil, err
	}
	where, args := filter(sc, memory.KindObservation, "t")
	rows, err := s.stmts.QueryContext(ctx, `SELECT t.id, t.session_id, t.created_at FROM observations t WHERE `+where+`
		ORDER BY t.created_at, t.id`+limit(n), args...)
	if err != nil {
		return nil, fmt.Errorf("listing observations: %w", err)
	}
	return candidateRows(rows, memory.KindObservation, false)
}

func (s *Snapshot) Neighbours(ctx context.Context, q memory.Query, c memory.Candidate, n int) ([]memory.Candidate, error) {
	sc, err := s.scope(ctx, q)
	if err != nil {
		return nil, err
	}
	where, args := filter(sc, memory.KindObservation, "t")
	ms := toMillis(c.Date)
	// Both sides in one statement: a search asks for the neighbours of
	// each of its best rows.
	side := func(which int, cond string) string {
		return `SELECT * FROM (SELECT t.id, t.session_id, t.created_at, ` + strconv.Itoa(which) + ` AS side FROM observations t
			WHERE t.session_id = ? AND ` + where + ` AND ` + cond + limit(n) + `)`
	}
	one := append(append([]any{c.Session}, args...), ms, ms, c.ID)
	rows, err := s.stmts.QueryContext(ctx, side(0, `(t.created_at < ? OR (t.created_at = ? AND t.id < ?)) ORDER BY t.created_at DESC, t.id DESC`)+
		` UNION ALL `+side(1, `(t.created_at > ? OR (t.created_at = ? AND t.id > ?)) ORDER BY t.created_at, t.id`), slices.Concat(one, one)...)
	if err != nil {
		return nil, fmt.Errorf("reading neighbours of #%d: %w", c.ID, err)
	}
	defer rows.Close()
	var before, after []memory.Candidate
	for rows.Next() {
		near := memory.Candidate{Kind: memory.KindObservation}
		var at int64
		var later bool
		if err := rows.Scan(&near.ID, &near.Session, &at, &later); err != nil {
			return nil, fmt.Errorf("reading neighbours of #%d: %w", c.ID, err)
		}
		near.Date = fromMillis(at)
		if later {
			after = append(after, near)
		} else {
			before = append(before, near)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading neighbours of #%d: %w", c.ID, err)
	}
	// Nearest first on each side, whatever order the union returned.
	byTime := func(a, b memory.Candidate) int {
		return cmp.Or(a.Date.Compare(b.Date), cmp.Compare(a.ID, b.ID))
	}
	slices.SortFunc(before, func(a, b memory.Candidate) int { return byTime(b, a) })
	slices.SortFunc(after, byTime)
	return append(before, after...), nil
}

func (s *Snapshot) Texts(ctx context.Context, k memory.Kind, ids []int64) (map[int64]string, error) {
	switch k {
	case memory.KindObservation:
		obs, err := observationsByID(ctx, s.tx, ids)
		if err != nil {
			return nil, err
		}
		return textsOf(obs, func(o memory.Observation) string { return o.SearchText() }), nil
	case memory.KindSummary:
		sums, err := summariesByID(ctx, s.tx, ids)
		if err != nil {
			return nil, err
		}
		return textsOf(sums, func(m memory.Summary) string { return m.SearchText() }), nil
	default:
		ps, err := promptsByID(ctx, s.tx, ids)
		if err != nil {
			return nil, err
		}
		return textsOf(ps, func(p memory.Prompt) string { return p.Text }), nil
	}
}

// textsOf maps records by id to their searchable text.
func textsOf[T any](recs map[int64]T, text func(T) string) map[int64]string {
	out := make(map[int64]string, len(recs))
	for id, r := range recs {
		out[id] = text(r)
	}
	return out
}

// kindTable names the table and full-text index of kind k.
func kindTable(k memory.Kind) (kt struct{ table, fts string }) {
	switch k {
	case memory.KindObservation:
		kt.table, kt.fts = "observations", "observations_fts"
	case memory.KindSummary:
		kt.table, kt.fts = "summaries", "summaries_fts"
	case memory.KindPrompt:
		kt.table, kt.fts = "prompts", "prompts_fts"
	}
	return kt
}
