package store

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/memhq/mem/internal/memory"
)

// FileHistory returns the history of one file (paths are its spellings) in
// one statement, parsed once on each Read of a file:
//
//   - the latest sessions (at most n) whose observations read or changed
//     it, newest first, each as the id of its newest observation of the
//     file: one session a line, as `git log -- FILE` gives it, however
//     far back;
//   - the session of the file's first current change, when that change
//     created it (a Write of a new file, which capture titles "Created FILE
//     ..."): each spelling's rows of observation_files walked oldest first
//     up to the first change;
//   - how many of each session's current observations changed the file
//     (file_sessions keeps the count of each spelling; a session's is its
//     largest, so an observation that names two spellings counts once).
func (db *DB) FileHistory(ctx context.Context, project string, paths []string, n int) (memory.FileHistory, error) {
	var h memory.FileHistory
	if len(paths) == 0 {
		return h, nil
	}
	n = limitOr(n, 20)
	// file_sessions holds each session's newest live observation of each
	// spelling (migration 00015), in order of it by path: each spelling's
	// n newest sessions are an index range, and a session's newest of the
	// spellings is among them. The file's creator is a subquery that does
	// not depend on the row: SQLite computes it once.
	args := []any{project, memory.CreatedVerb + " %"}
	marks := make([]string, len(paths))
	sessions := make([]string, len(paths))
	firsts := make([]string, len(paths))
	for i, p := range paths {
		args = append(args, p)
		marks[i] = "?" + strconv.Itoa(i+3)
		sessions[i] = `SELECT * FROM (SELECT session_id, last_id, changes FROM file_sessions INDEXED BY file_sessions_last
			WHERE path = ` + marks[i] + ` AND project = ?1 ORDER BY last_id DESC` + limit(n) + `)`
		firsts[i] = `SELECT * FROM (SELECT o.id, o.session_id, o.title LIKE ?2 AS created
			FROM observation_files f CROSS JOIN observations o ON o.id = f.observation_id
			WHERE f.path = ` + marks[i] + ` AND f.modified = 1 AND o.project = ?1 AND o.superseded_by IS NULL
			ORDER BY f.observation_id LIMIT 1)`
	}
	q := `SELECT h.session_id, h.last_id,
			(SELECT CASE WHEN created THEN session_id END FROM (` + strings.Join(firsts, " UNION ALL ") + `) ORDER BY id LIMIT 1),
			h.changes
		FROM (` + strings.Join(sessions, " UNION ALL ") + `) h`
	fail := func(err error) (memory.FileHistory, error) {
		return memory.FileHistory{}, fmt.Errorf("reading the history of %s: %w", paths[0], mapErr(err))
	}
	rows, err := db.q().QueryContext(ctx, q, args...)
	if err != nil {
		return fail(err)
	}
	defer rows.Close()
	newest := map[string]int64{}
	h.Changes = map[string]int{}
	for rows.Next() {
		var session string
		var id int64
		var creator sql.NullString
		var changed int
		if err := rows.Scan(&session, &id, &creator, &changed); err != nil {
			return fail(err)
		}
		newest[session] = max(newest[session], id)
		h.Creator = creator.String
		if changed > h.Changes[session] {
			h.Changes[session] = changed
		}
	}
	if err := rows.Err(); err != nil {
		return fail(err)
	}
	h.Sessions = make([]memory.Observation, 0, len(newest))
	for session, id := range newest {
		h.Sessions = append(h.Sessions, memory.Observation{ID: id, SessionID: session})
	}
	slices.SortFunc(h.Sessions, func(a, b memory.Observation) int { return cmp.Compare(b.ID, a.ID) })
	for _, o := range h.Sessions[min(n, len(h.Sessions)):] {
		delete(h.Changes, o.SessionID)
	}
	h.Sessions = h.Sessions[:min(n, len(h.Sessions))]
	return h, nil
}
