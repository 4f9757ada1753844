package store

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/memhq/mem/internal/memory"
)

// FileSessionEdits returns, for each of sessions that changed one file
// (paths are its spellings), how many of its current observations changed
// the file and whether one of them created it (a Write of a new file, which
// capture titles "Created FILE ..."). Sessions that only read it are left
// out.
func (db *DB) FileSessionEdits(ctx context.Context, project string, paths, sessions []string) (map[string]memory.FileEdits, error) {
	out := make(map[string]memory.FileEdits, len(sessions))
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
		Created   bool   `db:"created"`
	}
	// The sessions' observations by their index, each probing its own rows
	// of observation_files for the file.
	err = db.q().SelectContext(ctx, &rows, `SELECT o.session_id, count(DISTINCT o.id) AS changes,
			max(o.title LIKE 'Created %') AS created
		FROM observations o CROSS JOIN observation_files f ON f.observation_id = o.id
		WHERE o.session_id IN (SELECT value FROM json_each(?)) AND o.project = ? AND o.superseded_by IS NULL
			AND f.path IN (SELECT value FROM json_each(?)) AND f.modified = 1
		GROUP BY o.session_id`, string(sl), project, string(pl))
	if err != nil {
		return nil, fmt.Errorf("reading the sessions' changes of %s: %w", paths[0], mapErr(err))
	}
	for _, r := range rows {
		out[r.SessionID] = memory.FileEdits{Changes: r.Changes, Created: r.Created}
	}
	return out, nil
}
