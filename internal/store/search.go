package store

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jmoiron/sqlx"

	"github.com/memhq/mem/internal/memory"
)

// Searching runs fn on the Snapshot of q in one read-only transaction:
// the SQL a search (search.Search) is built from.
func (db *DB) Searching(ctx context.Context, q memory.Query, fn func(*Snapshot) error) error {
	return db.read(ctx, func(tx *sqlx.Tx) error {
		sc, err := resolveScope(ctx, tx, q)
		if err != nil {
			return err
		}
		return fn(newSnapshot(tx, sc))
	})
}

// scope is a query with its file filter resolved to observation ids.
type scope struct {
	memory.Query
	fileIDs string // JSON array of the ids of observations that touched File
}

// resolveScope finds the observations that read or modified q.File: that
// exact path, else any path that ends in /File. Looking them up once keeps
// the filter cheap inside the full-text queries.
func resolveScope(ctx context.Context, tx *sqlx.Tx, q memory.Query) (scope, error) {
	sc := scope{Query: q}
	if q.File == "" {
		return sc, nil
	}
	ids, err := rowids(ctx, tx, `SELECT DISTINCT observation_id FROM observation_files WHERE path = ?`, q.File)
	if err == nil && len(ids) == 0 {
		ids, err = rowids(ctx, tx, `SELECT DISTINCT observation_id FROM observation_files WHERE path LIKE ? ESCAPE '\'`,
			"%/"+likeEscape(strings.TrimLeft(q.File, "/")))
	}
	if err != nil {
		return sc, fmt.Errorf("finding observations of %s: %w", q.File, err)
	}
	sc.fileIDs = encodeIDs(ids)
	return sc, nil
}

func encodeIDs(ids []int64) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprint(&b, id)
	}
	b.WriteByte(']')
	return b.String()
}

// filter builds the WHERE conditions shared by every kind; alias is the
// table's alias. Only observations know types and files.
func filter(q scope, k memory.Kind, alias string) (string, []any) {
	var w []string
	var args []any
	if q.Project != "" {
		w = append(w, alias+".project = ?")
		args = append(args, q.Project)
	}
	if q.SessionID != "" {
		w = append(w, alias+".session_id = ?")
		args = append(args, q.SessionID)
	}
	if !q.Since.IsZero() {
		w = append(w, alias+".created_at >= ?")
		args = append(args, toMillis(q.Since))
	}
	if !q.Until.IsZero() {
		w = append(w, alias+".created_at < ?")
		args = append(args, toMillis(q.Until))
	}
	if k == memory.KindObservation {
		if len(q.Types) > 0 {
			w = append(w, alias+".type IN (?"+strings.Repeat(", ?", len(q.Types)-1)+")")
			for _, t := range q.Types {
				args = append(args, string(t))
			}
		}
		if q.File != "" {
			w = append(w, alias+`.id IN (SELECT value FROM json_each(?))`)
			args = append(args, q.fileIDs)
		}
	}
	if len(w) == 0 {
		return "1=1", nil
	}
	return strings.Join(w, " AND "), args
}

// queryer runs a statement that returns rows.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// limit is the LIMIT clause of a statement that returns at most n rows. It
// is written into the statement rather than bound: SQLite prepares a
// statement again each time a value is bound to its LIMIT, which cost a
// search a fifth of its time in statements it runs for every top row.
func limit(n int) string { return " LIMIT " + strconv.Itoa(n) }

// rowids runs a query of one integer column.
func rowids(ctx context.Context, tx queryer, query string, args ...any) ([]int64, error) {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// candidateRows reads rows of t.id, t.session_id and t.created_at (then the
// bm25 score when scored) as candidates of kind k, and closes them.
func candidateRows(rows *sql.Rows, k memory.Kind, scored bool) ([]memory.Candidate, error) {
	defer rows.Close()
	var out []memory.Candidate
	for rows.Next() {
		c := memory.Candidate{Kind: k}
		var ms int64
		dest := []any{&c.ID, &c.Session, &ms}
		if scored {
			dest = append(dest, &c.BM25)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		c.Date = fromMillis(ms)
		out = append(out, c)
	}
	return out, rows.Err()
}

// Recent returns the n newest rows of kind k that pass q's filters, newest
// first (ties: the higher id).
func (s *Snapshot) Recent(ctx context.Context, q memory.Query, k memory.Kind, n int) ([]memory.Candidate, error) {
	sc, err := s.scope(ctx, q)
	if err != nil {
		return nil, err
	}
	kt := kindTable(k)
	where, args := filter(sc, k, "t")
	rows, err := s.stmts.QueryContext(ctx, `SELECT t.id, t.session_id, t.created_at FROM `+kt.table+` t
		WHERE `+where+` ORDER BY t.created_at DESC, t.id DESC`+limit(n), args...)
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", kt.table, err)
	}
	return candidateRows(rows, k, false)
}

// Hits returns the records of cands as hits, in their order, with no score
// or snippet; a row that is gone is left out.
func (s *Snapshot) Hits(ctx context.Context, cands []memory.Candidate) ([]memory.Hit, error) {
	return loadHits(ctx, s.tx, cands)
}

// loadHits reads the records of cands and makes hits of them, titled.
func loadHits(ctx context.Context, tx *sqlx.Tx, cands []memory.Candidate) ([]memory.Hit, error) {
	ids := map[memory.Kind][]int64{}
	for _, c := range cands {
		ids[c.Kind] = append(ids[c.Kind], c.ID)
	}
	obs, err := observationsByID(ctx, tx, ids[memory.KindObservation])
	if err != nil {
		return nil, err
	}
	sums, err := summariesByID(ctx, tx, ids[memory.KindSummary])
	if err != nil {
		return nil, err
	}
	prompts, err := promptsByID(ctx, tx, ids[memory.KindPrompt])
	if err != nil {
		return nil, err
	}
	hits := make([]memory.Hit, 0, len(cands))
	for _, c := range cands {
		h := memory.Hit{Kind: c.Kind, ID: c.ID, SessionID: c.Session, Date: c.Date}
		switch c.Kind {
		case memory.KindObservation:
			o, ok := obs[c.ID]
			if !ok {
				continue
			}
			h = observationHit(o)
		case memory.KindSummary:
			m, ok := sums[c.ID]
			if !ok {
				continue
			}
			h = summaryHit(m)
		case memory.KindPrompt:
			p, ok := prompts[c.ID]
			if !ok {
				continue
			}
			h = promptHit(p)
		}
		hits = append(hits, h)
	}
	return hits, nil
}

func observationHit(o memory.Observation) memory.Hit {
	return memory.Hit{Kind: memory.KindObservation, ID: o.ID, Ref: fmt.Sprintf("#%d", o.ID), Type: o.Type,
		Title: o.Title, Date: o.CreatedAt, SessionID: o.SessionID, Project: o.Project, Observation: &o, Flag: heldFlag(o.Review)}
}

func summaryHit(m memory.Summary) memory.Hit {
	title := firstLine(m.Request)
	if title == "" {
		title = firstLine(m.Text)
	}
	return memory.Hit{Kind: memory.KindSummary, ID: m.ID, Ref: fmt.Sprintf("S%d", m.ID), Title: title,
		Date: m.CreatedAt, SessionID: m.SessionID, Project: m.Project, Summary: &m, Flag: heldFlag(m.Review)}
}

// heldFlag is the flag of a record held back from the agent, or "".
func heldFlag(r memory.Review) string {
	if r.Held() {
		return r.Flag
	}
	return ""
}

func promptHit(p memory.Prompt) memory.Hit {
	return memory.Hit{Kind: memory.KindPrompt, ID: p.ID, Ref: fmt.Sprintf("P%d", p.ID), Title: firstLine(p.Text),
		Date: p.CreatedAt, SessionID: p.SessionID, Project: p.Project, Prompt: &p}
}

// firstLine returns the first line of s, cut to 100 characters.
func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	if utf8.RuneCountInString(s) > 100 {
		s = string([]rune(s)[:99]) + "…"
	}
	return s
}

func observationsByID(ctx context.Context, q sqlx.QueryerContext, ids []int64) (map[int64]memory.Observation, error) {
	return recordsByID(ctx, q, "observations", observationCols, ids,
		func(r observationRow) (int64, memory.Observation) { return r.ID, r.observation() })
}

func summariesByID(ctx context.Context, q sqlx.QueryerContext, ids []int64) (map[int64]memory.Summary, error) {
	return recordsByID(ctx, q, "summaries", summaryCols, ids,
		func(r summaryRow) (int64, memory.Summary) { return r.ID, r.summary() })
}

func promptsByID(ctx context.Context, q sqlx.QueryerContext, ids []int64) (map[int64]memory.Prompt, error) {
	return recordsByID(ctx, q, "prompts", promptCols, ids,
		func(r promptRow) (int64, memory.Prompt) { return r.ID, r.prompt() })
}

// recordsByID reads the rows of table (its columns cols, scanned into R)
// whose ids are among ids, as records keyed by id.
func recordsByID[R, T any](ctx context.Context, q sqlx.QueryerContext, table, cols string, ids []int64, record func(R) (int64, T)) (map[int64]T, error) {
	out := map[int64]T{}
	if len(ids) == 0 {
		return out, nil
	}
	s, args, err := sqlx.In(`SELECT `+cols+` FROM `+table+` WHERE id IN (?)`, ids)
	if err != nil {
		return nil, err
	}
	var rows []R
	if err := sqlx.SelectContext(ctx, q, &rows, s, args...); err != nil {
		return nil, fmt.Errorf("reading %s: %w", table, err)
	}
	for _, r := range rows {
		id, rec := record(r)
		out[id] = rec
	}
	return out, nil
}
