package store

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"

	"github.com/memhq/mem/internal/memory"
)

// Flagged is a project's review queue: its observations and summaries the
// instruction check flagged (memory.Review), newest first, at most limit of
// each; released ones too with all.
type Flagged struct {
	Observations []memory.Observation `json:"observations"`
	Summaries    []memory.Summary     `json:"summaries"`
}

// FlaggedRecords reads a project's review queue.
func (db *DB) FlaggedRecords(ctx context.Context, project string, all bool, limit int) (Flagged, error) {
	held := ` AND released = 0`
	if all {
		held = ``
	}
	out := Flagged{Observations: []memory.Observation{}, Summaries: []memory.Summary{}}
	var obs []observationRow
	if err := db.q().SelectContext(ctx, &obs, `SELECT `+observationCols+` FROM observations
		WHERE project = ? AND flag <> ''`+held+` ORDER BY id DESC LIMIT ?`, project, limitOr(limit, 100)); err != nil {
		return out, fmt.Errorf("reading flagged observations: %w", mapErr(err))
	}
	var sums []summaryRow
	if err := db.q().SelectContext(ctx, &sums, `SELECT `+summaryCols+` FROM summaries
		WHERE project = ? AND flag <> ''`+held+` ORDER BY id DESC LIMIT ?`, project, limitOr(limit, 100)); err != nil {
		return out, fmt.Errorf("reading flagged summaries: %w", mapErr(err))
	}
	out.Observations = toRecords(obs, observationRow.observation)
	out.Summaries = toRecords(sums, summaryRow.summary)
	return out, nil
}

// SetReview stores what the instruction check found in records (a rescan
// with today's rules), keeping a person's release of the same flag.
func (db *DB) SetReview(ctx context.Context, obs map[int64]memory.Review, sums map[int64]memory.Review) error {
	return db.tx(ctx, func(tx *sqlx.Tx) error {
		for table, m := range map[string]map[int64]memory.Review{"observations": obs, "summaries": sums} {
			for id, r := range m {
				if _, err := tx.ExecContext(ctx, `UPDATE `+table+` SET flag = ?, flag_span = ?,
					released = CASE WHEN flag = ? THEN released ELSE 0 END WHERE id = ?`, r.Flag, r.Span, r.Flag, id); err != nil {
					return fmt.Errorf("storing the review of %s %d: %w", table, id, err)
				}
			}
		}
		return nil
	})
}

// Release lets flagged records through to the agent: a person read them and
// decided they are not instructions. Every id must name a flagged record of
// the project, or nothing is released.
func (db *DB) Release(ctx context.Context, project string, obs, sums []int64) error {
	return db.tx(ctx, func(tx *sqlx.Tx) error {
		for _, l := range []struct {
			table, prefix string
			ids           []int64
		}{{"observations", "#", obs}, {"summaries", "S", sums}} {
			for _, id := range l.ids {
				var flag string
				err := tx.GetContext(ctx, &flag, `SELECT flag FROM `+l.table+` WHERE id = ? AND project = ?`, id, project)
				if isNoRows(err) {
					return fmt.Errorf("%s%d in project %s: %w", l.prefix, id, project, memory.ErrNotFound)
				}
				if err != nil {
					return err
				}
				if flag == "" {
					return memory.Invalid("id", "a flagged record (mem review lists them)", fmt.Sprintf("%s%d is not flagged", l.prefix, id))
				}
				if _, err := tx.ExecContext(ctx, `UPDATE `+l.table+` SET released = 1 WHERE id = ?`, id); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// EachForReview calls fn with every observation and summary of a project,
// for a rescan with today's rules.
func (db *DB) EachForReview(ctx context.Context, project string, obs func(memory.Observation), sums func(memory.Summary)) error {
	rows, err := db.q().QueryxContext(ctx, `SELECT `+observationCols+` FROM observations WHERE project = ?`, project)
	if err != nil {
		return mapErr(err)
	}
	for rows.Next() {
		var r observationRow
		if err := rows.StructScan(&r); err != nil {
			rows.Close()
			return err
		}
		obs(r.observation())
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	var ss []summaryRow
	if err := db.q().SelectContext(ctx, &ss, `SELECT `+summaryCols+` FROM summaries WHERE project = ?`, project); err != nil {
		return mapErr(err)
	}
	for _, s := range ss {
		sums(s.summary())
	}
	return nil
}
