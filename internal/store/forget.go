package store

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/memhq/mem/internal/memory"
)

// Deleted counts what a forget removed.
type Deleted struct {
	Sessions     int64 `json:"sessions"`
	Observations int64 `json:"observations"`
	Summaries    int64 `json:"summaries"`
	Prompts      int64 `json:"prompts"`
}

// DeleteObservation removes one observation; the triggers remove its index rows.
func (db *DB) DeleteObservation(ctx context.Context, id int64) (Deleted, error) {
	n, err := db.deleteByID(ctx, "observations", id, "observation", fmt.Sprintf("observation #%d", id))
	return Deleted{Observations: n}, err
}

// DeleteSummary removes one summary.
func (db *DB) DeleteSummary(ctx context.Context, id int64) (Deleted, error) {
	n, err := db.deleteByID(ctx, "summaries", id, "summary", fmt.Sprintf("summary S%d", id))
	return Deleted{Summaries: n}, err
}

// deleteByID removes the row of table with id and returns how many rows went
// (0 on error); kind and ref (its id as users write it) name it in errors.
func (db *DB) deleteByID(ctx context.Context, table string, id int64, kind, ref string) (int64, error) {
	var n int64
	err := db.tx(ctx, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE id = ?`, id)
		if err != nil {
			return err
		}
		if n, _ = res.RowsAffected(); n == 0 {
			return fmt.Errorf("%s: %w", ref, memory.ErrNotFound)
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("forgetting %s: %w", kind, err)
	}
	return n, db.scrub(ctx, ref)
}

// DeleteSession removes a session with everything recorded in it.
func (db *DB) DeleteSession(ctx context.Context, id string) (Deleted, error) {
	return db.deleteWhere(ctx, `id = ?`, id, "session "+id)
}

// DeleteProject removes every session of a project with everything in them.
func (db *DB) DeleteProject(ctx context.Context, project string) (Deleted, error) {
	return db.deleteWhere(ctx, `project = ?`, project, "project "+project)
}

func (db *DB) deleteWhere(ctx context.Context, where string, arg any, what string) (Deleted, error) {
	var d Deleted
	err := db.tx(ctx, func(tx *sqlx.Tx) error {
		var err error
		d, err = deleteSessions(ctx, tx, where, arg)
		if err == nil && d.Sessions == 0 {
			err = fmt.Errorf("%s: %w", what, memory.ErrNotFound)
		}
		return err
	})
	if err != nil {
		return Deleted{}, fmt.Errorf("forgetting %s: %w", what, err)
	}
	return d, db.scrub(ctx, what)
}

// scrub removes what a forget deleted from the WAL as well: it checkpoints
// the WAL into the database file, where secure_delete zeroed the freed
// space, and truncates it, so that no older version of a page holding the
// forgotten text remains. It waits for readers like any statement.
func (db *DB) scrub(ctx context.Context, what string) error {
	var busy, logPages, done int
	if err := db.x.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logPages, &done); err != nil {
		return fmt.Errorf("clearing the WAL after forgetting %s: %w", what, mapErr(err))
	}
	if busy != 0 {
		return fmt.Errorf("forgot %s, but other processes kept its old pages in the WAL; `mem summarize --maintain` clears them: %w",
			what, ErrBusy)
	}
	return nil
}

// deleteSessions deletes the sessions matching where and, explicitly rather
// than through ON DELETE CASCADE, their rows, so the counts are exact and the
// FTS triggers fire for every row.
func deleteSessions(ctx context.Context, tx *sqlx.Tx, where string, arg any) (Deleted, error) {
	var d Deleted
	sel := `SELECT id FROM sessions WHERE ` + where
	steps := []struct {
		q string
		n *int64
	}{
		{`DELETE FROM observations WHERE session_id IN (` + sel + `)`, &d.Observations},
		{`DELETE FROM summaries WHERE session_id IN (` + sel + `)`, &d.Summaries},
		{`DELETE FROM prompts WHERE session_id IN (` + sel + `)`, &d.Prompts},
		{`DELETE FROM pending_context WHERE session_id IN (` + sel + `)`, nil},
		{`DELETE FROM session_marks WHERE session_id IN (` + sel + `)`, nil},
		{`DELETE FROM sessions WHERE ` + where, &d.Sessions},
	}
	for _, s := range steps {
		res, err := tx.ExecContext(ctx, s.q, arg)
		if err != nil {
			return Deleted{}, err
		}
		if s.n != nil {
			*s.n, _ = res.RowsAffected()
		}
	}
	return d, nil
}
