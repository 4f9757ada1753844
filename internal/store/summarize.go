package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/memhq/mem/internal/memory"
)

// SessionTimeline returns every observation of a session, oldest first
// (what a summary is written from).
func (db *DB) SessionTimeline(ctx context.Context, sessionID string) ([]memory.Observation, error) {
	return db.selectObservations(ctx, "reading the observations of session "+sessionID,
		`SELECT `+observationCols+` FROM observations WHERE session_id = ? ORDER BY created_at, id`, sessionID)
}

// Why a session needs a summary.
const (
	PendingEnded   = "ended"   // ended without a summary
	PendingIdle    = "idle"    // still open, idle for long, no summary
	PendingStale   = "stale"   // its summary is older than its newest observation
	PendingUpgrade = "upgrade" // summarized extractively; a model is now configured
)

// PendingSession is a session that needs a (new) summary and why.
type PendingSession struct {
	ID     string `db:"id" json:"id"`
	Reason string `db:"reason" json:"reason"`
}

// PendingQuery selects pending sessions.
type PendingQuery struct {
	// IdleBefore: an open session last active before it counts as finished.
	IdleBefore time.Time
	// Upgrade also selects sessions whose summary is extractive (used when a
	// model command is configured).
	Upgrade bool
	Limit   int // 0 for all
}

// PendingSessions lists the sessions that need a summary, oldest activity
// first: ended or idle sessions without one, sessions whose summary is older
// than their newest observation and, with Upgrade, extractive summaries.
// Sessions with nothing to summarize (no observation, prompt or last
// message) are left out, so they do not stay pending for ever. A session
// whose summary was forgotten (its tombstone) is pending again once it has
// an observation or prompt from after the forget, not before: the nightly
// job must not write the forgotten summary again from the same activity.
func (db *DB) PendingSessions(ctx context.Context, q PendingQuery) ([]PendingSession, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = -1
	}
	upgrade := 0
	if q.Upgrade {
		upgrade = 1
	}
	var out []PendingSession
	err := db.q().SelectContext(ctx, &out, `SELECT id, reason FROM (
		SELECT s.id, s.last_activity_at,
			CASE
				WHEN m.id IS NULL AND t.deleted_at IS NOT NULL
					AND NOT EXISTS (SELECT 1 FROM observations o WHERE o.session_id = s.id AND o.created_at > t.deleted_at)
					AND NOT EXISTS (SELECT 1 FROM prompts p WHERE p.session_id = s.id AND p.created_at > t.deleted_at) THEN NULL
				WHEN m.id IS NULL AND s.status = 'ended' THEN 'ended'
				WHEN m.id IS NULL AND s.last_activity_at < ?1 THEN 'idle'
				WHEN m.id IS NOT NULL AND m.covers_until <
					coalesce((SELECT max(o.created_at) FROM observations o WHERE o.session_id = s.id), 0) THEN 'stale'
				WHEN m.id IS NOT NULL AND ?2 = 1 AND m.generator = 'extractive'
					AND (s.status = 'ended' OR s.last_activity_at < ?1) THEN 'upgrade'
			END AS reason
		FROM sessions s LEFT JOIN summaries m ON m.session_id = s.id
			LEFT JOIN sync_tombstones t ON t.key = 'summary:' || s.id
		WHERE (EXISTS (SELECT 1 FROM observations o WHERE o.session_id = s.id)
			OR EXISTS (SELECT 1 FROM prompts p WHERE p.session_id = s.id)
			OR s.last_message <> '')
	) WHERE reason IS NOT NULL ORDER BY last_activity_at, id LIMIT ?3`,
		toMillis(q.IdleBefore), upgrade, limit)
	if err != nil {
		return nil, fmt.Errorf("listing sessions to summarize: %w", mapErr(err))
	}
	return out, nil
}

// AcquireLease takes the named lease for holder until now+ttl when it is
// free, expired, already holder's, or held by replace (a holder known to be
// dead; empty for none). It returns who holds the lease afterwards and until
// when: the caller has it when that is holder.
func (db *DB) AcquireLease(ctx context.Context, name, holder, replace string, now time.Time, ttl time.Duration) (string, time.Time, error) {
	var cur struct {
		Holder    string `db:"holder"`
		ExpiresAt int64  `db:"expires_at"`
	}
	err := db.tx(ctx, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO leases (name, holder, expires_at) VALUES (?1, ?2, ?3)
			ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
			WHERE leases.expires_at <= ?4 OR leases.holder = excluded.holder OR (?5 <> '' AND leases.holder = ?5)`,
			name, holder, toMillis(now.Add(ttl)), toMillis(now), replace); err != nil {
			return err
		}
		return tx.GetContext(ctx, &cur, `SELECT holder, expires_at FROM leases WHERE name = ?`, name)
	})
	if err != nil {
		return "", time.Time{}, fmt.Errorf("taking the %s lease: %w", name, err)
	}
	return cur.Holder, fromMillis(cur.ExpiresAt), nil
}

// ReleaseLease gives the lease up if holder still has it.
func (db *DB) ReleaseLease(ctx context.Context, name, holder string) error {
	if _, err := db.change(ctx, `DELETE FROM leases WHERE name = ? AND holder = ?`, name, holder); err != nil {
		return fmt.Errorf("releasing the %s lease: %w", name, err)
	}
	return nil
}

// MaintainReport says what Maintain did.
type MaintainReport struct {
	PendingDropped int64 `json:"pending_dropped"`
	// InjectionsDropped counts the injections older than KeepInjections.
	InjectionsDropped int64 `json:"injections_dropped,omitempty"`
	FTSOptimized      int   `json:"fts_optimized"`
	// WALBusy is true when readers kept the checkpoint from truncating the WAL.
	WALBusy bool `json:"wal_busy"`
	// WALPages is the size of the WAL in pages before the checkpoint.
	WALPages int `json:"wal_pages"`
	// Skipped names the steps other processes kept the database from for
	// longer than the wait: the next run does them.
	Skipped []string `json:"skipped,omitempty"`
}

// OptimizeFTS merges each full-text index into one segment above the level
// the segments of later writes go to, each in a transaction of its own, and
// returns how many it merged. Hooks do no merging of their own (migration
// 00010 turns FTS5's automerge off): the writes of a day fill the lowest
// levels with small segments, which FTS5 merges only among themselves, 16
// at a time, and this puts the day's work, and an import's, back into the
// one large segment, where no editor waits (the nightly job, imports).
func (db *DB) OptimizeFTS(ctx context.Context) (int, error) {
	for i, t := range ftsTables {
		if err := db.optimizeFTS(ctx, t); err != nil {
			return i, fmt.Errorf("optimizing %s: %w", t, err)
		}
	}
	return len(ftsTables), nil
}

// ftsQuietLevel is the lowest level of its index the one segment an
// optimize leaves may sit on. Hooks write a small segment each, on level 0,
// and FTS5 merges a whole level into the next once it holds 16 segments
// (its crisis merge): a segment on level k is merged again, in whichever
// write fills its level, after 15 × 16^k small writes. On level 1 that was
// 240: on a 100k import, the 660th Edit hook after it took 764 ms instead
// of 13, merging the whole index. On level 3 it is 61,440 writes, more
// than a day of hooks; the nightly job merges everything again.
const ftsQuietLevel = 3

// optimizeFTS merges the full-text index t into one segment on
// ftsQuietLevel or above, in a transaction of its own.
func (db *DB) optimizeFTS(ctx context.Context, t string) error {
	return db.tx(ctx, func(tx *sqlx.Tx) error {
		// Optimize puts its segment a level above the highest one in use,
		// and leaves a lone segment where it is: while the segment is
		// lower than ftsQuietLevel, one row indexed again gives it a
		// second segment to merge a level up (a few passes at most).
		for pass := 0; ; pass++ {
			var segs int
			if err := tx.GetContext(ctx, &segs, `SELECT count(DISTINCT segid) FROM `+t+`_idx`); err != nil {
				return err
			}
			if segs == 0 {
				return nil
			}
			if segs == 1 {
				levels, err := ftsLevels(ctx, tx, t)
				if err != nil {
					return err
				}
				if levels > ftsQuietLevel || pass > ftsQuietLevel {
					return nil
				}
				if err := reindexLast(ctx, tx, t); err != nil {
					return err
				}
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO `+t+` (`+t+`) VALUES ('optimize')`); err != nil {
				return err
			}
		}
	})
}

// ftsLevels returns how many levels the full-text index t has: the second
// number of its structure record (FTS5's fts5StructureDecode: a 4-byte
// cookie, a 4-byte version mark in the second format, then the number of
// levels as a varint). Its segments are on levels 0 to the result - 1.
func ftsLevels(ctx context.Context, tx *sqlx.Tx, t string) (int, error) {
	var b []byte
	if err := tx.GetContext(ctx, &b, `SELECT block FROM `+t+`_data WHERE id = 10`); err != nil {
		return 0, fmt.Errorf("reading the structure of %s: %w", t, err)
	}
	i := 4
	if len(b) >= 8 && string(b[4:8]) == "\xff\x00\x00\x01" {
		i = 8
	}
	n, ok := sqliteVarint(b[min(i, len(b)):])
	if !ok {
		return 0, fmt.Errorf("reading the structure of %s: %d bytes, no number of levels", t, len(b))
	}
	return int(n), nil
}

// sqliteVarint decodes one of SQLite's varints (big-endian, seven bits a
// byte, the ninth byte whole) at the start of b.
func sqliteVarint(b []byte) (uint64, bool) {
	var v uint64
	for i := 0; i < len(b) && i < 9; i++ {
		if i == 8 {
			return v<<8 | uint64(b[i]), true
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i]&0x80 == 0 {
			return v, true
		}
	}
	return 0, false
}

// reindexLast deletes the newest row of the external-content index t (over
// the table named without the _fts suffix, rowid id) and indexes it again.
func reindexLast(ctx context.Context, tx *sqlx.Tx, t string) error {
	var cols []string
	if err := tx.SelectContext(ctx, &cols, `SELECT name FROM pragma_table_info(?)`, t); err != nil {
		return err
	}
	list := strings.Join(cols, ", ")
	content := strings.TrimSuffix(t, "_fts")
	last := ` FROM ` + content + ` WHERE id = (SELECT max(id) FROM ` + content + `)`
	if _, err := tx.ExecContext(ctx, `INSERT INTO `+t+` (`+t+`, rowid, `+list+`) SELECT 'delete', id, `+list+last); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO `+t+` (rowid, `+list+`) SELECT id, `+list+last)
	return err
}

// KeepInjections is how long the record of what was injected is kept (what
// mem stats and the viewer count injected memory's worth from); the
// maintenance drops older rows.
const KeepInjections = 90 * 24 * time.Hour

// Maintain tidies the database: it drops the pending context of sessions
// that ended before endedBefore (and of sessions that no longer exist) and
// the injections KeepInjections older than endedBefore, merges the FTS5 indexes, lets SQLite refresh its query statistics and
// truncates the WAL. Each step is its own short transaction, retried while
// another process holds the database; one it holds for longer than the
// wait is skipped and named in Skipped (the WAL's in WALBusy), rather than
// failing a job whose work is done. Other errors fail it.
func (db *DB) Maintain(ctx context.Context, endedBefore time.Time) (MaintainReport, error) {
	var r MaintainReport
	step := func(name string, err error) error {
		if errors.Is(err, ErrBusy) {
			r.Skipped = append(r.Skipped, name)
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return nil
	}
	cut := toMillis(endedBefore)
	err := db.tx(ctx, func(tx *sqlx.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM pending_context WHERE session_id IN
				(SELECT id FROM sessions WHERE status = 'ended' AND ended_at < ?1)
			OR (created_at < ?1 AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = pending_context.session_id))`, cut)
		if err != nil {
			return err
		}
		r.PendingDropped, _ = res.RowsAffected()
		res, err = tx.ExecContext(ctx, `DELETE FROM injections WHERE at < ?`, toMillis(endedBefore.Add(-KeepInjections)))
		if err != nil {
			return err
		}
		r.InjectionsDropped, _ = res.RowsAffected()
		return nil
	})
	if err := step("dropping old pending context and injections", err); err != nil {
		return r, err
	}
	for _, t := range ftsTables {
		err := db.optimizeFTS(ctx, t)
		if err == nil {
			r.FTSOptimized++
		}
		if err := step("optimizing "+t, err); err != nil {
			return r, err
		}
	}
	// In a write transaction of its own, the ANALYZE it may run waits for
	// the write lock as every write does, rather than failing at once.
	err = db.tx(ctx, func(tx *sqlx.Tx) error {
		_, err := tx.ExecContext(ctx, `PRAGMA optimize`)
		return err
	})
	if err := step("optimizing the query planner statistics", err); err != nil {
		return r, err
	}
	busy, pages, err := db.truncateWAL(ctx)
	if err != nil {
		return r, fmt.Errorf("checkpointing the WAL: %w", err)
	}
	r.WALBusy, r.WALPages = busy, pages
	return r, nil
}

// truncateWAL checkpoints the WAL into the database file and truncates it.
// Other processes reading or writing keep it from truncating; it retries,
// with jitter, for the wait, and then reports busy (what was checkpointed
// stays checkpointed). pages is the WAL's size in pages before.
func (db *DB) truncateWAL(ctx context.Context) (busy bool, pages int, err error) {
	err = db.retry(ctx, func() error {
		var b, done int
		if err := db.x.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&b, &pages, &done); err != nil {
			return mapErr(err)
		}
		if b != 0 {
			return ErrBusy
		}
		return nil
	})
	if errors.Is(err, ErrBusy) {
		return true, pages, nil
	}
	return false, pages, err
}
