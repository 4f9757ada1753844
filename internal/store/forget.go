package store

import (
	"context"
	"fmt"
	"strings"

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

// DeleteRecords removes observations and summaries by id in one
// transaction: when one of them is missing or cannot be deleted, none is.
// The triggers remove their index rows and leave a tombstone of each, so
// that team sync keeps it away; an id given twice counts once. The WAL is
// cleared after (scrub).
func (db *DB) DeleteRecords(ctx context.Context, observations, summaries []int64) (Deleted, error) {
	d, refs, err := db.deleteRecords(ctx, observations, summaries, true)
	if err != nil {
		return Deleted{}, err
	}
	return d, db.scrub(ctx, strings.Join(refs, ", "))
}

// deleteRecords deletes as DeleteRecords does, without clearing the WAL,
// and returns the refs of what it deleted. With strict, a missing id fails
// the whole delete; without, it is passed over.
func (db *DB) deleteRecords(ctx context.Context, observations, summaries []int64, strict bool) (Deleted, []string, error) {
	var (
		d    Deleted
		refs []string
	)
	sets := []struct {
		table, kind, ref string
		ids              []int64
		n                *int64
	}{
		{"observations", "observation", "observation #%d", observations, &d.Observations},
		{"summaries", "summary", "summary S%d", summaries, &d.Summaries},
	}
	err := db.tx(ctx, func(tx *sqlx.Tx) error {
		d, refs = Deleted{}, nil
		for _, set := range sets {
			seen := map[int64]bool{}
			for _, id := range set.ids {
				if seen[id] {
					continue
				}
				seen[id] = true
				ref := fmt.Sprintf(set.ref, id)
				res, err := tx.ExecContext(ctx, `DELETE FROM `+set.table+` WHERE id = ?`, id)
				var n int64
				if err == nil {
					if n, _ = res.RowsAffected(); n == 0 && strict {
						err = memory.ErrNotFound
					}
					*set.n += n
				}
				if err != nil {
					return fmt.Errorf("forgetting %s: %s: %w", set.kind, ref, err)
				}
				if n > 0 {
					refs = append(refs, ref)
				}
			}
		}
		return nil
	})
	if err != nil {
		return Deleted{}, nil, err
	}
	return d, refs, nil
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
// forgotten text remains. It waits for other processes as writes do; when
// they keep the WAL in use for longer, it fails with ErrWALKept, the
// deletion itself done.
func (db *DB) scrub(ctx context.Context, what string) error {
	busy, _, err := db.truncateWAL(ctx)
	if err != nil {
		return fmt.Errorf("clearing the WAL after forgetting %s: %w", what, err)
	}
	if busy {
		return fmt.Errorf("forgot %s, but %w", what, ErrWALKept)
	}
	return nil
}

// deleteSessions deletes the sessions matching where and, explicitly rather
// than through ON DELETE CASCADE, their rows, so the counts are exact and the
// FTS triggers fire for every row.
func deleteSessions(ctx context.Context, tx *sqlx.Tx, where string, args ...any) (Deleted, error) {
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
		{`DELETE FROM injections WHERE session_id IN (` + sel + `)`, nil},
		{`DELETE FROM sessions WHERE ` + where, &d.Sessions},
	}
	for _, s := range steps {
		res, err := tx.ExecContext(ctx, s.q, args...)
		if err != nil {
			return Deleted{}, err
		}
		if s.n != nil {
			*s.n, _ = res.RowsAffected()
		}
	}
	return d, nil
}
