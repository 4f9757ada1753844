package store

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
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
			scored, err = ranked(ctx, tx, sc, plan, r)
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

// kindTables names the tables and bm25 weights of each kind.
type kindTable struct {
	table, fts string
	weights    func(search.Ranking) string
}

var kindTables = map[search.Kind]kindTable{
	search.KindObservation: {"observations", "observations_fts", func(r search.Ranking) string {
		w := make([]string, len(r.Weights))
		for i, v := range r.Weights {
			w[i] = fmt.Sprint(v)
		}
		return strings.Join(w, ", ")
	}},
	search.KindSummary: {"summaries", "summaries_fts", func(search.Ranking) string { return "" }},
	search.KindPrompt:  {"prompts", "prompts_fts", func(search.Ranking) string { return "" }},
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
// small share, a mild preference for newer rows.
func candidates(ctx context.Context, tx *sqlx.Tx, q scope, k search.Kind, units []string, r search.Ranking, n int) ([]search.Candidate, error) {
	if len(units) == 0 {
		return nil, nil
	}
	kt := kindTables[k]
	if r.Window <= 0 {
		return scoreRows(ctx, tx, q, k, strings.Join(units, " OR "), r, n)
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
		ids, err := rowids(ctx, tx, `SELECT rowid FROM `+kt.fts+` WHERE `+kt.fts+` MATCH ?
			ORDER BY rowid DESC LIMIT ?`, u, r.Window)
		if err != nil {
			return nil, fmt.Errorf("full-text search of %s: %w", kt.table, err)
		}
		if len(ids) < r.Window {
			selective = append(selective, u)
		} else {
			common[u] = ids
		}
	}
	if len(common) == 0 {
		return scoreRows(ctx, tx, q, k, strings.Join(append(selective, phrases...), " OR "), r, n)
	}
	var span struct {
		Lo int64 `db:"lo"`
		Hi int64 `db:"hi"`
	}
	if err := tx.GetContext(ctx, &span, `SELECT coalesce((SELECT min(id) FROM `+kt.table+`), 0) AS lo,
		coalesce((SELECT max(id) FROM `+kt.table+`), 0) AS hi`); err != nil {
		return nil, fmt.Errorf("reading %s ids: %w", kt.table, err)
	}
	total := float64(span.Hi - span.Lo + 1)
	bonus := map[int64]float64{}
	for _, u := range words {
		ids, ok := common[u]
		if !ok {
			continue
		}
		w := idf(total, float64(len(ids))*total/float64(span.Hi-ids[len(ids)-1]+1))
		for _, id := range ids {
			bonus[id] += w
		}
	}
	var out []search.Candidate
	if len(selective) > 0 {
		var err error
		if out, err = scoreRows(ctx, tx, q, k, strings.Join(selective, " OR "), r, 2*n); err != nil {
			return nil, err
		}
	}
	have := make(map[int64]bool, len(out))
	for i := range out {
		have[out[i].ID] = true
		out[i].BM25 -= bonus[out[i].ID]
	}
	// Rows that have only common words: the best few that pass the filters.
	rest := make([]int64, 0, len(bonus))
	for id := range bonus {
		if !have[id] {
			rest = append(rest, id)
		}
	}
	sort.Slice(rest, func(i, j int) bool {
		if bonus[rest[i]] != bonus[rest[j]] {
			return bonus[rest[i]] > bonus[rest[j]]
		}
		return rest[i] > rest[j]
	})
	if len(rest) > n {
		rest = rest[:n]
	}
	extra, err := filterRows(ctx, tx, q, k, rest)
	if err != nil {
		return nil, err
	}
	for _, c := range extra {
		c.BM25 = -bonus[c.ID]
		out = append(out, c)
	}
	if err := phraseBonus(ctx, tx, k, phrases, out, total); err != nil {
		return nil, err
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].BM25 < out[j].BM25 })
	if len(out) > n {
		out = out[:n]
	}
	return out, nil
}

// phraseBonus adds to each of the best candidates that has a phrase the
// phrase's idf, estimated from how many of them have it. The phrases are
// checked on the rows' text: asking FTS5 for a phrase of common words reads
// their whole position lists.
func phraseBonus(ctx context.Context, tx *sqlx.Tx, k search.Kind, phrases []string, cands []search.Candidate, total float64) error {
	if len(phrases) == 0 || len(cands) == 0 {
		return nil
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].BM25 < cands[j].BM25 })
	top := cands[:min(len(cands), 50)]
	texts, err := kindTexts(ctx, tx, k, candidateIDs(top))
	if err != nil {
		return err
	}
	split := make([]search.PhraseText, len(top))
	for i, c := range top {
		split[i] = search.NewPhraseText(texts[c.ID])
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

// kindTexts returns the searchable text of rows of a kind by id.
func kindTexts(ctx context.Context, tx *sqlx.Tx, k search.Kind, ids []int64) (map[int64]string, error) {
	switch k {
	case search.KindObservation:
		return observationTexts(ctx, tx, ids)
	case search.KindSummary:
		sums, err := summariesByID(ctx, tx, ids)
		if err != nil {
			return nil, err
		}
		return textsOf(sums, summaryText), nil
	default:
		ps, err := promptsByID(ctx, tx, ids)
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

// filterRows returns the rows among ids that pass the query's filters.
func filterRows(ctx context.Context, tx *sqlx.Tx, q scope, k search.Kind, ids []int64) ([]search.Candidate, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	kt := kindTables[k]
	where, args := filter(q, k, "t")
	s, inArgs, err := sqlx.In(`SELECT t.id, t.session_id, t.created_at FROM `+kt.table+` t NOT INDEXED WHERE t.id IN (?)`, ids)
	if err != nil {
		return nil, err
	}
	rows, err := tx.QueryContext(ctx, s+` AND `+where, append(inArgs, args...)...)
	if err != nil {
		return nil, fmt.Errorf("filtering %s: %w", kt.table, err)
	}
	return candidateRows(rows, k, false)
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

// candidateIDs returns the ids of cands, in order.
func candidateIDs(cands []search.Candidate) []int64 {
	ids := make([]int64, len(cands))
	for i, c := range cands {
		ids[i] = c.ID
	}
	return ids
}

// indexByID maps the id of each of cands to its position.
func indexByID(cands []search.Candidate) map[int64]int {
	idx := make(map[int64]int, len(cands))
	for i, c := range cands {
		idx[c.ID] = i
	}
	return idx
}

// addNew appends to cands those of more whose ids idx does not hold yet,
// recording their positions in idx.
func addNew(cands []search.Candidate, idx map[int64]int, more []search.Candidate) []search.Candidate {
	for _, c := range more {
		if _, ok := idx[c.ID]; !ok {
			idx[c.ID] = len(cands)
			cands = append(cands, c)
		}
	}
	return cands
}

// scoreRows runs one bm25-ranked FTS5 query for a kind.
func scoreRows(ctx context.Context, tx *sqlx.Tx, q scope, k search.Kind, match string, r search.Ranking, n int) ([]search.Candidate, error) {
	kt := kindTables[k]
	where, args := filter(q, k, "t")
	bm := "bm25(" + kt.fts
	if w := kt.weights(r); w != "" {
		bm += ", " + w
	}
	bm += ")"
	sqlText := `SELECT t.id, t.session_id, t.created_at, ` + bm + ` AS score
		FROM ` + kt.fts + ` JOIN ` + kt.table + ` t ON t.id = ` + kt.fts + `.rowid
		WHERE ` + kt.fts + ` MATCH ? AND ` + where + ` ORDER BY score, t.id DESC LIMIT ?`
	rows, err := tx.QueryContext(ctx, sqlText, append(append([]any{match}, args...), n)...)
	if err != nil {
		return nil, fmt.Errorf("full-text search of %s: %w", kt.table, err)
	}
	return candidateRows(rows, k, true)
}

// ranked scores every wanted kind for the plan and merges them.
func ranked(ctx context.Context, tx *sqlx.Tx, q scope, plan search.Plan, r search.Ranking) ([]search.Scored, error) {
	n := r.Candidates
	if n < q.Limit+q.Offset {
		n = q.Limit + q.Offset
	}
	units := plan.Units(search.MatchOptions{Prefix: r.Prefix, Bigrams: r.Bigrams})
	lists := map[search.Kind][]search.Scored{}
	for _, k := range search.Kinds() {
		if !q.Wants(k) {
			continue
		}
		cands, err := candidates(ctx, tx, q, k, units, r, n)
		if err != nil {
			return nil, err
		}
		var sessions map[string]float64
		if k == search.KindObservation {
			if r.SessionWeight > 0 || r.FeedbackSummaries {
				if sessions, err = sessionScores(ctx, tx, q, units, r); err != nil {
					return nil, err
				}
			}
			if cands, err = feedback(ctx, tx, q, plan, r, cands, sessions, n); err != nil {
				return nil, err
			}
			if r.SessionWeight > 0 {
				if cands, err = sessionMembers(ctx, tx, q, sessions, r.SessionExpand, cands); err != nil {
					return nil, err
				}
			}
		}
		if k == search.KindObservation && r.Neighbors > 0 && r.NeighborWeight > 0 {
			if cands, err = neighbors(ctx, tx, q, r, cands); err != nil {
				return nil, err
			}
		}
		if spans := search.Dates(q.Text); k == search.KindObservation && r.DateWeight > 0 && len(spans) > 0 {
			if cands, err = dated(ctx, tx, q, r, spans, cands); err != nil {
				return nil, err
			}
		}
		lists[k] = r.Combine(cands, sessions)
	}
	return r.Merge(lists), nil
}

// feedback adds pseudo-relevance feedback: the words most shared by the best
// rows (or by the matching sentences of the best session summaries) are
// searched for too, and their bm25 joins the candidates' scores.
func feedback(ctx context.Context, tx *sqlx.Tx, q scope, plan search.Plan, r search.Ranking, cands []search.Candidate, sessions map[string]float64, n int) ([]search.Candidate, error) {
	if r.FeedbackDocs <= 0 || r.FeedbackTerms <= 0 || r.FeedbackWeight == 0 || len(cands) == 0 {
		return cands, nil
	}
	var docs []string
	var err error
	if r.FeedbackSummaries {
		docs, err = summarySentences(ctx, tx, sessions, plan, r.FeedbackDocs)
	} else {
		docs, err = topTexts(ctx, tx, cands, r.FeedbackDocs)
	}
	if err != nil {
		return nil, err
	}
	minDocs := 2
	if r.FeedbackSummaries {
		minDocs = 1
	}
	words := search.FeedbackWords(docs, plan.Words(), r.FeedbackTerms, minDocs)
	if len(words) == 0 {
		return cands, nil
	}
	extra, err := candidates(ctx, tx, q, search.KindObservation, search.Quote(words), r, n)
	if err != nil {
		return nil, err
	}
	idx := indexByID(cands)
	for _, e := range extra {
		if i, ok := idx[e.ID]; ok {
			cands[i].Feedback = e.BM25
			continue
		}
		e.Feedback, e.BM25 = e.BM25, 0
		cands = append(cands, e)
	}
	return cands, nil
}

// topTexts returns the text of the first n candidates.
func topTexts(ctx context.Context, tx *sqlx.Tx, cands []search.Candidate, n int) ([]string, error) {
	top := cands
	if len(top) > n {
		top = top[:n]
	}
	ids := candidateIDs(top)
	texts, err := observationTexts(ctx, tx, ids)
	if err != nil {
		return nil, err
	}
	docs := make([]string, 0, len(ids))
	for _, id := range ids {
		docs = append(docs, texts[id])
	}
	return docs, nil
}

// summarySentences returns the sentences with query words of the summaries
// of the n best-scored sessions.
func summarySentences(ctx context.Context, tx *sqlx.Tx, sessions map[string]float64, plan search.Plan, n int) ([]string, error) {
	ids := bestSessions(sessions, n)
	if len(ids) == 0 {
		return nil, nil
	}
	s, args, err := sqlx.In(`SELECT `+summaryCols+` FROM summaries WHERE session_id IN (?)`, ids)
	if err != nil {
		return nil, err
	}
	var rows []summaryRow
	if err := tx.SelectContext(ctx, &rows, s, args...); err != nil {
		return nil, fmt.Errorf("reading summaries: %w", err)
	}
	words := plan.Words()
	var out []string
	for _, r := range rows {
		for _, sent := range search.Sentences(summaryText(r.summary())) {
			if search.Coverage(sent, words) > 0 {
				out = append(out, sent)
			}
		}
	}
	return out, nil
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
// for the query (for the best r.Candidates summaries).
func sessionScores(ctx context.Context, tx *sqlx.Tx, q scope, units []string, r search.Ranking) (map[string]float64, error) {
	sq := q
	sq.Since, sq.Until = time.Time{}, time.Time{} // a session's summary is dated at its end
	sums, err := candidates(ctx, tx, sq, search.KindSummary, units, r, min(r.Candidates, 50))
	if err != nil {
		return nil, fmt.Errorf("scoring session summaries: %w", err)
	}
	out := make(map[string]float64, len(sums))
	for _, c := range sums {
		out[c.Session] = c.BM25
	}
	return out, nil
}

// sessionMembers adds the observations of the n best-scored sessions that
// pass the filters and are not candidates yet, with no text score of their own.
func sessionMembers(ctx context.Context, tx *sqlx.Tx, q scope, sessions map[string]float64, n int, cands []search.Candidate) ([]search.Candidate, error) {
	if n <= 0 || len(sessions) == 0 {
		return cands, nil
	}
	idx := indexByID(cands)
	for _, sid := range bestSessions(sessions, n) {
		sq := q
		sq.SessionID = sid
		where, args := filter(sq, search.KindObservation, "t")
		rows, err := tx.QueryContext(ctx, `SELECT t.id, t.session_id, t.created_at FROM observations t WHERE `+where+`
			ORDER BY t.created_at, t.id LIMIT 500`, args...)
		if err != nil {
			return nil, fmt.Errorf("reading observations of session %s: %w", sid, err)
		}
		members, err := candidateRows(rows, search.KindObservation, false)
		if err != nil {
			return nil, err
		}
		cands = addNew(cands, idx, members)
	}
	return cands, nil
}

// observationTexts returns the searchable text of observations by id.
func observationTexts(ctx context.Context, tx *sqlx.Tx, ids []int64) (map[int64]string, error) {
	obs, err := observationsByID(ctx, tx, ids)
	if err != nil {
		return nil, err
	}
	return textsOf(obs, observationText), nil
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
		kt := kindTables[k]
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
		Title: o.Title, Date: o.CreatedAt, SessionID: o.SessionID, Project: o.Project, Observation: &o}
}

func summaryHit(m memory.Summary) search.Hit {
	title := firstLine(m.Request)
	if title == "" {
		title = firstLine(m.Text)
	}
	return search.Hit{Kind: search.KindSummary, ID: m.ID, Ref: fmt.Sprintf("S%d", m.ID), Title: title,
		Date: m.CreatedAt, SessionID: m.SessionID, Project: m.Project, Summary: &m}
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

// neighbors gives the observations just before and after each of the best
// rows in its session that row's text score as their Neighbor score, adding
// those not yet among the candidates.
func neighbors(ctx context.Context, tx *sqlx.Tx, q scope, r search.Ranking, cands []search.Candidate) ([]search.Candidate, error) {
	top := make([]search.Candidate, 0, r.NeighborDocs)
	for _, c := range cands {
		if c.BM25 < 0 && len(top) < r.NeighborDocs {
			top = append(top, c)
		}
	}
	idx := indexByID(cands)
	where, args := filter(q, search.KindObservation, "t")
	for _, c := range top {
		ms := toMillis(c.Date)
		for _, side := range []string{
			`(t.created_at < ? OR (t.created_at = ? AND t.id < ?)) ORDER BY t.created_at DESC, t.id DESC`,
			`(t.created_at > ? OR (t.created_at = ? AND t.id > ?)) ORDER BY t.created_at, t.id`,
		} {
			rows, err := tx.QueryContext(ctx, `SELECT t.id, t.session_id, t.created_at FROM observations t
				WHERE t.session_id = ? AND `+where+` AND `+side+` LIMIT ?`,
				append(append([]any{c.Session}, args...), ms, ms, c.ID, r.Neighbors)...)
			if err != nil {
				return nil, fmt.Errorf("reading neighbours of #%d: %w", c.ID, err)
			}
			near, err := candidateRows(rows, search.KindObservation, false)
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
	}
	return cands, nil
}

// dated scores candidates by how well their dates fit the dates the query
// names, first adding up to r.DateExpand rows from the named days.
func dated(ctx context.Context, tx *sqlx.Tx, q scope, r search.Ranking, spans []search.Span, cands []search.Candidate) ([]search.Candidate, error) {
	idx := indexByID(cands)
	where, args := filter(q, search.KindObservation, "t")
	for _, s := range spans {
		if r.DateExpand <= 0 || s.Precision < 1 {
			continue
		}
		rows, err := tx.QueryContext(ctx, `SELECT t.id, t.session_id, t.created_at FROM observations t
			WHERE `+where+` AND t.created_at >= ? AND t.created_at < ? ORDER BY t.created_at, t.id LIMIT ?`,
			append(args, toMillis(s.From), toMillis(s.To), r.DateExpand)...)
		if err != nil {
			return nil, fmt.Errorf("reading observations of %s: %w", s.From.Format("2006-01-02"), err)
		}
		day, err := candidateRows(rows, search.KindObservation, false)
		if err != nil {
			return nil, err
		}
		cands = addNew(cands, idx, day)
	}
	for i := range cands {
		cands[i].DateFit = search.DateScore(cands[i].Date, spans, r.DateWindow)
	}
	return cands, nil
}
