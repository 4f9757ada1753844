package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/jmoiron/sqlx"

	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/search"
)

// Search finds observations, summaries and prompts for a query, best first.
// The text goes through search.Parse and never reaches MATCH as is; a query
// without text lists the newest rows that pass the filters.
func (db *DB) Search(ctx context.Context, q search.Query) ([]search.Hit, error) {
	if err := checkQuery(&q); err != nil {
		return nil, err
	}
	r := search.DefaultRanking()
	if q.Ranking != nil {
		r = *q.Ranking
	}
	plan := search.Parse(q.Text)
	var hits []search.Hit
	err := db.read(ctx, func(tx *sqlx.Tx) error {
		sc, err := resolveScope(ctx, tx, q)
		if err != nil {
			return err
		}
		var scored []search.Scored
		switch {
		case sc.File != "" && sc.fileIDs == "[]":
			// no observation touched the file
		case strings.TrimSpace(q.Text) == "":
			scored, err = recent(ctx, tx, sc)
		case !plan.Empty():
			scored, err = search.Rank(ctx, &source{tx: tx, base: sc}, q, plan, r)
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
		hits, err = loadHits(ctx, tx, scored, plan.Words())
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("searching: %w", err)
	}
	return hits, nil
}

// scope is a query with its file filter resolved to observation ids.
type scope struct {
	search.Query
	fileIDs string // JSON array of the ids of observations that touched File
}

// resolveScope finds the observations that read or modified q.File: that
// exact path, else any path that ends in /File. Looking them up once keeps
// the filter cheap inside the full-text queries.
func resolveScope(ctx context.Context, tx *sqlx.Tx, q search.Query) (scope, error) {
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

// checkQuery applies defaults and rejects a query that names no scope.
func checkQuery(q *search.Query) error {
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
		q.Limit = search.DefaultLimit
	}
	if q.Limit+q.Offset > search.MaxLimit {
		return memory.Invalid("limit", fmt.Sprintf("limit + offset of at most %d", search.MaxLimit), fmt.Sprint(q.Limit+q.Offset))
	}
	// Types and files belong to observations only: asking for them means
	// observations unless kinds were named.
	if len(q.Kinds) == 0 && (len(q.Types) > 0 || q.File != "") {
		q.Kinds = []search.Kind{search.KindObservation}
	}
	return nil
}

// filter builds the WHERE conditions shared by every kind; alias is the
// table's alias. Only observations know types and files.
func filter(q scope, k search.Kind, alias string) (string, []any) {
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
	if k == search.KindObservation {
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

// rowids runs a query of one integer column.
func rowids(ctx context.Context, tx *sqlx.Tx, query string, args ...any) ([]int64, error) {
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
func candidateRows(rows *sql.Rows, k search.Kind, scored bool) ([]search.Candidate, error) {
	defer rows.Close()
	var out []search.Candidate
	for rows.Next() {
		c := search.Candidate{Kind: k}
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

func observationText(o memory.Observation) string {
	return joinText(append([]string{o.Title}, bodyParts(o)...))
}

// observationBody is the text of an observation below its title.
func observationBody(o memory.Observation) string { return joinText(bodyParts(o)) }

func bodyParts(o memory.Observation) []string {
	parts := []string{o.Subtitle, o.Narrative}
	parts = append(parts, o.Facts...)
	parts = append(parts, o.Concepts...)
	parts = append(parts, o.FilesModified...)
	parts = append(parts, o.FilesRead...)
	return parts
}

func joinText(parts []string) string {
	var keep []string
	for _, p := range parts {
		if strings.TrimSpace(p) != "" {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, " · ")
}

// recent lists the newest rows of every wanted kind that pass the filters.
func recent(ctx context.Context, tx *sqlx.Tx, q scope) ([]search.Scored, error) {
	n := q.Limit + q.Offset
	var out []search.Scored
	for _, k := range search.Kinds() {
		if !q.Wants(k) {
			continue
		}
		kt := kindTable(k)
		where, args := filter(q, k, "t")
		rows, err := tx.QueryContext(ctx, `SELECT t.id, t.session_id, t.created_at FROM `+kt.table+` t
			WHERE `+where+` ORDER BY t.created_at DESC, t.id DESC LIMIT ?`, append(args, n)...)
		if err != nil {
			return nil, fmt.Errorf("listing %s: %w", kt.table, err)
		}
		cands, err := candidateRows(rows, k, false)
		if err != nil {
			return nil, err
		}
		for _, c := range cands {
			out = append(out, search.Scored{Candidate: c})
		}
	}
	return search.Ranking{}.Merge(map[search.Kind][]search.Scored{"": out}), nil
}

// loadHits reads the full records of the scored rows and makes hits with
// titles and snippets.
func loadHits(ctx context.Context, tx *sqlx.Tx, scored []search.Scored, words []string) ([]search.Hit, error) {
	ids := map[search.Kind][]int64{}
	for _, s := range scored {
		ids[s.Kind] = append(ids[s.Kind], s.ID)
	}
	obs, err := observationsByID(ctx, tx, ids[search.KindObservation])
	if err != nil {
		return nil, err
	}
	sums, err := summariesByID(ctx, tx, ids[search.KindSummary])
	if err != nil {
		return nil, err
	}
	prompts, err := promptsByID(ctx, tx, ids[search.KindPrompt])
	if err != nil {
		return nil, err
	}
	hits := make([]search.Hit, 0, len(scored))
	for _, s := range scored {
		h := search.Hit{Kind: s.Kind, ID: s.ID, Score: s.Score, SessionID: s.Session, Date: s.Date}
		switch s.Kind {
		case search.KindObservation:
			o, ok := obs[s.ID]
			if !ok {
				continue
			}
			h = observationHit(o)
			h.Score = s.Score
			h.Snippet = snippet(observationBody(o), words)
		case search.KindSummary:
			m, ok := sums[s.ID]
			if !ok {
				continue
			}
			h = summaryHit(m)
			h.Score = s.Score
			h.Snippet = snippet(summaryText(m), words)
		case search.KindPrompt:
			p, ok := prompts[s.ID]
			if !ok {
				continue
			}
			h = promptHit(p)
			h.Score = s.Score
			h.Snippet = snippet(p.Text, words)
		}
		hits = append(hits, h)
	}
	return hits, nil
}

func snippet(text string, words []string) string { return search.Snippet(text, words, 20) }

func observationHit(o memory.Observation) search.Hit {
	return search.Hit{Kind: search.KindObservation, ID: o.ID, Ref: fmt.Sprintf("#%d", o.ID), Type: o.Type,
		Title: o.Title, Date: o.CreatedAt, SessionID: o.SessionID, Project: o.Project, Observation: &o, Flag: heldFlag(o.Review)}
}

func summaryHit(m memory.Summary) search.Hit {
	title := firstLine(m.Request)
	if title == "" {
		title = firstLine(m.Text)
	}
	return search.Hit{Kind: search.KindSummary, ID: m.ID, Ref: fmt.Sprintf("S%d", m.ID), Title: title,
		Date: m.CreatedAt, SessionID: m.SessionID, Project: m.Project, Summary: &m, Flag: heldFlag(m.Review)}
}

// heldFlag is the flag of a record held back from the agent, or "".
func heldFlag(r memory.Review) string {
	if r.Held() {
		return r.Flag
	}
	return ""
}

func promptHit(p memory.Prompt) search.Hit {
	return search.Hit{Kind: search.KindPrompt, ID: p.ID, Ref: fmt.Sprintf("P%d", p.ID), Title: firstLine(p.Text),
		Date: p.CreatedAt, SessionID: p.SessionID, Project: p.Project, Prompt: &p}
}

func summaryText(m memory.Summary) string {
	return joinText([]string{m.Request, m.Investigated, m.Learned, m.Completed, m.NextSteps, m.Decisions, m.Text})
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
