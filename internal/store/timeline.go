package store

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/memhq/mem/internal/memory"
)

// Timeline returns the prompts and observations of a session in order:
// around an observation (Before entries before it, After after it, the
// observation marked as anchor) or, without one, the session from its start.
func (db *DB) Timeline(ctx context.Context, q memory.TimelineQuery) ([]memory.Hit, error) {
	if q.Before < 0 || q.After < 0 {
		return nil, memory.Invalid("before/after", "numbers >= 0", fmt.Sprint(q.Before, " ", q.After))
	}
	var hits []memory.Hit
	err := db.read(ctx, func(tx *sqlx.Tx) error {
		session := q.SessionID
		if q.Around > 0 {
			if err := tx.GetContext(ctx, &session, `SELECT session_id FROM observations WHERE id = ?`, q.Around); err != nil {
				if isNoRows(err) {
					return fmt.Errorf("observation #%d: %w", q.Around, memory.ErrNotFound)
				}
				return err
			}
		} else if _, err := getSession(ctx, tx, session); err != nil {
			return err
		}
		var entries []memory.Candidate
		rows, err := tx.QueryContext(ctx, `SELECT kind, id, created_at FROM (
				SELECT 'observation' AS kind, 1 AS ord, id, created_at FROM observations WHERE session_id = ?
				UNION ALL SELECT 'prompt', 0, id, created_at FROM prompts WHERE session_id = ?)
			ORDER BY created_at, ord, id`, session, session)
		if err != nil {
			return fmt.Errorf("reading session %s: %w", session, err)
		}
		defer rows.Close()
		anchor := -1
		for rows.Next() {
			var e memory.Candidate
			var kind string
			var ms int64
			if err := rows.Scan(&kind, &e.ID, &ms); err != nil {
				return err
			}
			e.Kind, e.Session, e.Date = memory.Kind(kind), session, fromMillis(ms)
			if e.Kind == memory.KindObservation && e.ID == q.Around {
				anchor = len(entries)
			}
			entries = append(entries, e)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		from, to := 0, len(entries)
		switch {
		case anchor >= 0:
			from, to = max(0, anchor-q.Before), min(len(entries), anchor+q.After+1)
		case q.After > 0:
			to = min(len(entries), q.After)
		}
		to = min(to, from+memory.MaxLimit)
		hits, err = loadHits(ctx, tx, entries[from:to])
		if err != nil {
			return err
		}
		for i := range hits {
			hits[i].Anchor = anchor >= 0 && from+i == anchor
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("building timeline: %w", err)
	}
	return hits, nil
}

// Prompt returns a prompt by its id.
func (db *DB) Prompt(ctx context.Context, id int64) (memory.Prompt, error) {
	var r promptRow
	err := db.q().GetContext(ctx, &r, `SELECT `+promptCols+` FROM prompts WHERE id = ?`, id)
	if isNoRows(err) {
		return memory.Prompt{}, fmt.Errorf("prompt P%d: %w", id, memory.ErrNotFound)
	}
	if err != nil {
		return memory.Prompt{}, fmt.Errorf("reading prompt P%d: %w", id, mapErr(err))
	}
	return r.prompt(), nil
}
