package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/memhq/mem/internal/memory"
)

// FileSessionChanges returns, for each of sessions that changed one file
// (paths are its spellings), how many of its current observations changed
// it. Sessions that only read it are left out.
func (db *DB) FileSessionChanges(ctx context.Context, project string, paths, sessions []string) (map[string]int, error) {
	out := make(map[string]int, len(sessions))
	if len(paths) == 0 || len(sessions) == 0 {
		return out, nil
	}
	pl, err := json.Marshal(paths)
	if err != nil {
		return nil, err
	}
	sl, err := json.Marshal(sessions)
	if err != nil {
		return nil, err
	}
	var rows []struct {
		SessionID string `db:"session_id"`
		Changes   int    `db:"changes"`
	}
	// The sessions' observations by their index alone, each probing its own
	// rows of observation_files for the file; only the changes of the file
	// are then read from the table.
	err = db.q().SelectContext(ctx, &rows, `SELECT x.session_id, count(*) AS changes
		FROM (SELECT DISTINCT s.id AS id, s.session_id AS session_id
			FROM observations s CROSS JOIN observation_files f ON f.observation_id = s.id
			WHERE s.session_id IN (SELECT value FROM json_each(?))
				AND f.path IN (SELECT value FROM json_each(?)) AND f.modified = 1) x
		CROSS JOIN observations o ON o.id = x.id
		WHERE o.project = ? AND o.superseded_by IS NULL
		GROUP BY x.session_id`, string(sl), string(pl), project)
	if err != nil {
		return nil, fmt.Errorf("reading the sessions' changes of %s: %w", paths[0], mapErr(err))
	}
	for _, r := range rows {
		out[r.SessionID] = r.Changes
	}
	return out, nil
}

// FileCreator returns the session that created one file (paths are its
// spellings): the session of the file's first current change when that
// change created it (a Write of a new file, which capture titles "Created
// FILE ..."); "" when memory did not see it created. Each spelling's rows
// of observation_files are walked oldest first up to the first change, all
// spellings in one statement (it is parsed at each Read of a file).
func (db *DB) FileCreator(ctx context.Context, project string, paths []string) (string, error) {
	if len(paths) == 0 {
		return "", nil
	}
	args := []any{memory.CreatedVerb + " %", project}
	firsts := make([]string, len(paths))
	for i, p := range paths {
		args = append(args, p)
		firsts[i] = `SELECT * FROM (SELECT o.id, o.session_id, o.title LIKE ?1 AS created
			FROM observation_files f CROSS JOIN observations o ON o.id = f.observation_id
			WHERE f.path = ?` + strconv.Itoa(i+3) + ` AND f.modified = 1 AND o.project = ?2 AND o.superseded_by IS NULL
			ORDER BY f.observation_id LIMIT 1)`
	}
	var rows []struct {
		ID        int64  `db:"id"`
		SessionID string `db:"session_id"`
		Created   bool   `db:"created"`
	}
	if err := db.q().SelectContext(ctx, &rows, `SELECT id, session_id, created FROM (`+
		strings.Join(firsts, " UNION ALL ")+`) ORDER BY id LIMIT 1`, args...); err != nil {
		return "", fmt.Errorf("reading who created %s: %w", paths[0], mapErr(err))
	}
	if len(rows) == 0 || !rows[0].Created {
		return "", nil
	}
	return rows[0].SessionID, nil
}
