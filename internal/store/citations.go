package store

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/memhq/mem/internal/memory"
)

// insertCitations records the files observation id cites. A citation of a
// path already recorded for it (the same content captured again) takes the
// newer fingerprint.
func insertCitations(ctx context.Context, tx querier, id int64, cs []memory.Citation) error {
	for _, c := range cs {
		if _, err := tx.ExecContext(ctx, `INSERT INTO citations (observation_id, path, root, role, size, mtime,
			hash, line_start, line_end, span) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (observation_id, path) DO UPDATE SET root = excluded.root, role = excluded.role,
			size = excluded.size, mtime = excluded.mtime, hash = excluded.hash,
			line_start = excluded.line_start, line_end = excluded.line_end, span = excluded.span,
			seen_size = -2, seen_mtime = 0`,
			id, c.Path, c.Root, c.Role, c.Size, c.ModTime, c.Hash, c.LineStart, c.LineEnd, c.Span); err != nil {
			return fmt.Errorf("recording the citation of %s: %w", c.Path, err)
		}
	}
	return nil
}

// supersede retires observation old in favour of its correction id, which
// must belong to the same project. A record already retired is corrected
// through its current version.
func supersede(ctx context.Context, tx *sqlx.Tx, old, id int64, project string) error {
	var row struct {
		Project string `db:"project"`
		By      *int64 `db:"superseded_by"`
	}
	err := tx.GetContext(ctx, &row, `SELECT project, superseded_by FROM observations WHERE id = ?`, old)
	if isNoRows(err) {
		return memory.Invalid("supersedes", "the id of an observation of this project", fmt.Sprint(old))
	}
	if err != nil {
		return err
	}
	if row.Project != project {
		return memory.Invalid("supersedes", "the id of an observation of this project", fmt.Sprint(old))
	}
	if row.By != nil && *row.By != id {
		return memory.Invalid("supersedes", fmt.Sprintf("the current version (#%d was corrected by #%d)", old, *row.By), fmt.Sprint(old))
	}
	if old == id {
		return memory.Invalid("supersedes", "another observation than the correction itself", fmt.Sprint(old))
	}
	if _, err = tx.ExecContext(ctx, `UPDATE observations SET superseded_by = ? WHERE id = ?`, id, old); err != nil {
		return err
	}
	// The correction names what it retires by uuid, and a shared project's
	// correction is pushed again to carry it.
	if _, err = tx.ExecContext(ctx, `UPDATE observations SET supersedes_uuid = (SELECT uuid FROM observations WHERE id = ?1)
		WHERE id = ?2 AND supersedes_uuid <> (SELECT uuid FROM observations WHERE id = ?1)`, old, id); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO sync_log (key, project) SELECT 'observation:' || uuid, project FROM observations
		WHERE id = ? AND project IN (SELECT project FROM sync_projects) AND NOT EXISTS (SELECT 1 FROM sync_applying)`, id)
	return err
}

// resolveSupersedes retires every current record that a correction names
// by uuid (supersedes_uuid) in the same project: after an import, which
// may bring the correction before or after the record it retires.
func resolveSupersedes(ctx context.Context, tx querier) error {
	_, err := tx.ExecContext(ctx, `UPDATE observations SET superseded_by = (SELECT min(c.id) FROM observations c
		WHERE c.supersedes_uuid = observations.uuid AND c.project = observations.project AND c.id <> observations.id)
		WHERE superseded_by IS NULL AND uuid IN (SELECT supersedes_uuid FROM observations WHERE supersedes_uuid <> '')
		AND EXISTS (SELECT 1 FROM observations c WHERE c.supersedes_uuid = observations.uuid
			AND c.project = observations.project AND c.id <> observations.id)`)
	if err != nil {
		return fmt.Errorf("resolving corrections: %w", err)
	}
	return nil
}

// Supersede retires observation old in favour of its correction id (of the
// same project): what capture proposes on its own.
func (db *DB) Supersede(ctx context.Context, old, id int64) error {
	err := db.tx(ctx, func(tx *sqlx.Tx) error {
		var project string
		if err := tx.GetContext(ctx, &project, `SELECT project FROM observations WHERE id = ?`, id); err != nil {
			if isNoRows(err) {
				return fmt.Errorf("observation #%d: %w", id, memory.ErrNotFound)
			}
			return err
		}
		return supersede(ctx, tx, old, id, project)
	})
	if err != nil {
		return fmt.Errorf("retiring #%d: %w", old, err)
	}
	return nil
}

// Citations returns the citations of the given observations, those of
// the paths except left out, in observation then path order.
func (db *DB) Citations(ctx context.Context, ids []int64, except []string) ([]memory.Citation, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	rows, err := db.q().QueryContext(ctx, `SELECT observation_id, path, root, role, size, mtime, hash, line_start, line_end,
		span, seen_size, seen_mtime FROM citations WHERE observation_id IN (SELECT value FROM json_each(?1))
		AND path NOT IN (SELECT value FROM json_each(?2))
		ORDER BY observation_id, path`, string(list), encodeList(except))
	if err != nil {
		return nil, fmt.Errorf("reading citations: %w", mapErr(err))
	}
	defer rows.Close()
	var out []memory.Citation
	for rows.Next() {
		var c memory.Citation
		if err := rows.Scan(&c.ObservationID, &c.Path, &c.Root, &c.Role, &c.Size, &c.ModTime, &c.Hash,
			&c.LineStart, &c.LineEnd, &c.Span, &c.SeenSize, &c.SeenModTime); err != nil {
			return nil, fmt.Errorf("reading citations: %w", mapErr(err))
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading citations: %w", mapErr(err))
	}
	return out, nil
}

// UpdateCitations keeps what a check learnt of cited files: each
// citation's fingerprint (size, mtime, and the content and lines where an
// edit's lines were found again) and where its file was last seen with
// other content (seen_size, seen_mtime).
func (db *DB) UpdateCitations(ctx context.Context, cs []memory.Citation) error {
	if len(cs) == 0 {
		return nil
	}
	err := db.tx(ctx, func(tx *sqlx.Tx) error {
		for _, c := range cs {
			if _, err := tx.ExecContext(ctx, `UPDATE citations SET size = ?, mtime = ?, hash = ?, line_start = ?, line_end = ?,
				seen_size = ?, seen_mtime = ? WHERE observation_id = ? AND path = ?`, c.Size, c.ModTime, c.Hash, c.LineStart, c.LineEnd,
				c.SeenSize, c.SeenModTime, c.ObservationID, c.Path); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("keeping what a check of cited files learnt: %w", err)
	}
	return nil
}

// CorrectionChain returns the ids of the records id corrects (oldest
// first), then id, then the corrections of id (newest last).
func (db *DB) CorrectionChain(ctx context.Context, id int64) ([]int64, error) {
	var before, after []int64
	cur := id
	for range 64 {
		var prev int64
		err := db.q().GetContext(ctx, &prev, `SELECT id FROM observations WHERE superseded_by = ? LIMIT 1`, cur)
		if isNoRows(err) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading the corrections of #%d: %w", id, mapErr(err))
		}
		before = append([]int64{prev}, before...)
		cur = prev
	}
	cur = id
	for range 64 {
		var next *int64
		err := db.q().GetContext(ctx, &next, `SELECT superseded_by FROM observations WHERE id = ?`, cur)
		if isNoRows(err) || next == nil {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading the corrections of #%d: %w", id, mapErr(err))
		}
		after = append(after, *next)
		cur = *next
	}
	return append(append(before, id), after...), nil
}

// RetiredObservations returns the observations of the given sessions that a
// correction retired, without narrative and facts.
func (db *DB) RetiredObservations(ctx context.Context, sessionIDs []string) ([]memory.Observation, error) {
	if len(sessionIDs) == 0 {
		return nil, nil
	}
	list, err := json.Marshal(sessionIDs)
	if err != nil {
		return nil, err
	}
	// observations_retired holds the retired records only: nothing is read
	// of a session that has none.
	return db.selectObservations(ctx, "reading retired observations", `SELECT `+briefCols+` FROM observations
		INDEXED BY observations_retired
		WHERE session_id IN (SELECT value FROM json_each(?)) AND superseded_by IS NOT NULL
		ORDER BY id LIMIT 200`, string(list))
}
