package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/memhq/mem/internal/memory"
)

// ExpiredObservations returns up to limit observations of type t recorded
// before the cutoff, oldest first, without narrative and facts. A record in
// a correction chain is left out: forgetting it would break the chain.
func (db *DB) ExpiredObservations(ctx context.Context, t memory.Type, before time.Time, limit int) ([]memory.Observation, error) {
	return db.selectObservations(ctx, "reading expired observations", `SELECT `+briefCols+` FROM observations o
		WHERE type = ? AND created_at < ? AND superseded_by IS NULL
		AND NOT EXISTS (SELECT 1 FROM observations c WHERE c.superseded_by = o.id)
		ORDER BY created_at, id LIMIT ?`, string(t), toMillis(before), limitOr(limit, 1000))
}

// SessionSummaries returns the summaries of the given sessions (those that
// have one).
func (db *DB) SessionSummaries(ctx context.Context, sessionIDs []string) ([]memory.Summary, error) {
	if len(sessionIDs) == 0 {
		return nil, nil
	}
	list, err := json.Marshal(sessionIDs)
	if err != nil {
		return nil, err
	}
	var rows []summaryRow
	if err := db.q().SelectContext(ctx, &rows, `SELECT `+summaryCols+` FROM summaries
		WHERE session_id IN (SELECT value FROM json_each(?))`, string(list)); err != nil {
		return nil, fmt.Errorf("reading summaries: %w", mapErr(err))
	}
	return toRecords(rows, summaryRow.summary), nil
}

// SummaryHeads returns the summaries of the given sessions (those that have
// one) with what a context entry reads of them: id, session, request, text,
// generator, date, provenance and review. Their sections are read only for
// a summary without provenance, which the last gate checks whole
// (guard.SummaryForAgent). A file's history asks after up to sixty
// sessions at a first touch: fewer columns, scanned by position.
func (db *DB) SummaryHeads(ctx context.Context, sessionIDs []string) ([]memory.Summary, error) {
	if len(sessionIDs) == 0 {
		return nil, nil
	}
	list, err := json.Marshal(sessionIDs)
	if err != nil {
		return nil, err
	}
	rows, err := db.q().QueryContext(ctx, `SELECT id, session_id, request, text, generator, created_at,
		origin, origin_agent, origin_event, origin_member, untrusted, flag, flag_span, released,
		CASE WHEN origin = '' THEN investigated ELSE '' END, CASE WHEN origin = '' THEN learned ELSE '' END,
		CASE WHEN origin = '' THEN completed ELSE '' END, CASE WHEN origin = '' THEN next_steps ELSE '' END,
		CASE WHEN origin = '' THEN decisions ELSE '' END
		FROM summaries WHERE session_id IN (SELECT value FROM json_each(?))`, string(list))
	if err != nil {
		return nil, fmt.Errorf("reading summaries: %w", mapErr(err))
	}
	defer rows.Close()
	var out []memory.Summary
	for rows.Next() {
		var r summaryRow
		if err := rows.Scan(append([]any{&r.ID, &r.SessionID, &r.Request, &r.Text, &r.Generator, &r.CreatedAt},
			append(r.dests(), &r.Investigated, &r.Learned, &r.Completed, &r.NextSteps, &r.Decisions)...)...); err != nil {
			return nil, fmt.Errorf("reading summaries: %w", mapErr(err))
		}
		r.Concepts, r.Files = "[]", "[]"
		out = append(out, r.summary())
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading summaries: %w", mapErr(err))
	}
	return out, nil
}

// DuplicateGroups returns up to limit groups of near-duplicate observations:
// the same project, type, title and modified files, none in a correction
// chain. Each group's ids are newest first.
func (db *DB) DuplicateGroups(ctx context.Context, limit int) ([][]int64, error) {
	var rows []string
	err := db.q().SelectContext(ctx, &rows, `SELECT group_concat(id) FROM (
		SELECT id, project, type, title, files_modified FROM observations o
		WHERE superseded_by IS NULL AND NOT EXISTS (SELECT 1 FROM observations c WHERE c.superseded_by = o.id)
		ORDER BY created_at DESC, id DESC)
		GROUP BY project, type, title, files_modified HAVING count(*) > 1 LIMIT ?`, limitOr(limit, 1000))
	if err != nil {
		return nil, fmt.Errorf("finding near-duplicates: %w", mapErr(err))
	}
	out := make([][]int64, 0, len(rows))
	for _, r := range rows {
		var ids []int64
		for _, f := range strings.Split(r, ",") {
			id, err := strconv.ParseInt(f, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("finding near-duplicates: %w", err)
			}
			ids = append(ids, id)
		}
		out = append(out, ids)
	}
	return out, nil
}

// Consolidate folds the observations drop into keep, which counts them
// from then on, in one transaction.
func (db *DB) Consolidate(ctx context.Context, keep int64, drop []int64) error {
	list, err := json.Marshal(drop)
	if err != nil {
		return err
	}
	err = db.tx(ctx, func(tx *sqlx.Tx) error {
		var n int
		if err := tx.GetContext(ctx, &n, `SELECT coalesce(sum(occurrences), 0) FROM observations
			WHERE id IN (SELECT value FROM json_each(?))`, string(list)); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM observations WHERE id IN (SELECT value FROM json_each(?))`, string(list)); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE observations SET occurrences = occurrences + ? WHERE id = ?`, n, keep)
		return err
	})
	if err != nil {
		return fmt.Errorf("consolidating into #%d: %w", keep, err)
	}
	return nil
}

// ForgetObservations forgets the observations retention let go as `mem
// forget` does (DeleteRecords), in one transaction: each leaves a tombstone
// that keeps team sync from bringing it back, and the WAL is cleared after.
// One another process deleted meanwhile is passed over. When other
// processes keep the WAL in use, the records are gone all the same and no
// error is returned: the maintenance that follows truncates the WAL again
// and reports it busy (MaintainReport.WALBusy).
func (db *DB) ForgetObservations(ctx context.Context, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	d, _, err := db.deleteRecords(ctx, ids, nil, false)
	if err != nil {
		return fmt.Errorf("forgetting expired observations: %w", err)
	}
	err = db.scrub(ctx, fmt.Sprintf("%d expired observations", d.Observations))
	if errors.Is(err, ErrWALKept) {
		return nil
	}
	return err
}
