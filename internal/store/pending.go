package store

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/memhq/mem/internal/memory"
)

// Pending context: entries waiting to be delivered to a session at its next
// turn, keyed by (session, source, entry id), and session marks: things a
// session has already been given, so that each reaches it once.

type pendingRow struct {
	SessionID  string `db:"session_id"`
	Source     string `db:"source"`
	EntryID    string `db:"entry_id"`
	Content    string `db:"content"`
	Priority   int    `db:"priority"`
	Persistent bool   `db:"persistent"`
	CreatedAt  int64  `db:"created_at"`
	Seq        int64  `db:"seq"`
}

const pendingCols = `session_id, source, entry_id, content, priority, persistent, created_at, rowid AS seq`

func (r pendingRow) entry() memory.PendingEntry {
	return memory.PendingEntry{
		SessionID: r.SessionID, Source: r.Source, EntryID: r.EntryID, Content: r.Content,
		Priority: memory.Priority(r.Priority), Persistent: r.Persistent, CreatedAt: fromMillis(r.CreatedAt),
	}
}

// sortPending orders entries for delivery: higher priority first, then by
// registration, earlier first (the rowid breaks ties within a millisecond,
// since a replaced entry gets a new row).
func sortPending(rows []pendingRow) []memory.PendingEntry {
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.Priority != b.Priority {
			return a.Priority > b.Priority
		}
		if a.CreatedAt != b.CreatedAt {
			return a.CreatedAt < b.CreatedAt
		}
		return a.Seq < b.Seq
	})
	return toRecords(rows, pendingRow.entry)
}

func upsertPending(ctx context.Context, tx *sqlx.Tx, e memory.PendingEntry) error {
	at := e.CreatedAt
	if at.IsZero() {
		at = time.Now()
	}
	// REPLACE gives the entry a new rowid: registering again is a new registration.
	_, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO pending_context
		(session_id, source, entry_id, content, priority, persistent, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		e.SessionID, e.Source, e.EntryID, e.Content, int(e.Priority), e.Persistent, toMillis(at))
	return err
}

// RegisterPending stores an entry for a session; an entry with the same
// session, source and id is replaced.
func (db *DB) RegisterPending(ctx context.Context, e memory.PendingEntry) error {
	err := db.tx(ctx, func(tx *sqlx.Tx) error { return upsertPending(ctx, tx, e) })
	if err != nil {
		return fmt.Errorf("registering pending context %s:%s: %w", e.Source, e.EntryID, err)
	}
	return nil
}

// RegisterPendingOnce registers e unless the session already carries the
// mark (kind, key), and sets the mark, in one transaction. When the mark was
// already set and the entry is still pending, its priority is raised to e's
// if that is higher. It reports whether the entry was registered.
func (db *DB) RegisterPendingOnce(ctx context.Context, e memory.PendingEntry, kind, key string) (bool, error) {
	var fresh bool
	err := db.tx(ctx, func(tx *sqlx.Tx) error {
		var err error
		fresh, err = insertMark(ctx, tx, e.SessionID, kind, key, e.CreatedAt)
		if err != nil {
			return err
		}
		if fresh {
			return upsertPending(ctx, tx, e)
		}
		_, err = tx.ExecContext(ctx, `UPDATE pending_context SET priority = ?
			WHERE session_id = ? AND source = ? AND entry_id = ? AND priority < ?`,
			int(e.Priority), e.SessionID, e.Source, e.EntryID, int(e.Priority))
		return err
	})
	if err != nil {
		return false, fmt.Errorf("registering pending context %s:%s: %w", e.Source, e.EntryID, err)
	}
	return fresh, nil
}

// RaisePending raises to p the priority of a session's waiting entries of
// source whose content begins with prefix (the entries of one group,
// collector.InGroup).
func (db *DB) RaisePending(ctx context.Context, session, source, prefix string, p memory.Priority) error {
	err := db.tx(ctx, func(tx *sqlx.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE pending_context SET priority = ?1
			WHERE session_id = ?2 AND source = ?3 AND priority < ?1 AND substr(content, 1, length(?4)) = ?4`,
			int(p), session, source, prefix)
		return err
	})
	if err != nil {
		return fmt.Errorf("raising pending context %s: %w", source, err)
	}
	return nil
}

// PendingEntries returns a session's entries in delivery order without
// consuming them.
func (db *DB) PendingEntries(ctx context.Context, session string) ([]memory.PendingEntry, error) {
	var rows []pendingRow
	err := db.q().SelectContext(ctx, &rows, `SELECT `+pendingCols+` FROM pending_context WHERE session_id = ?`, session)
	if err != nil {
		return nil, fmt.Errorf("reading pending context of %s: %w", session, mapErr(err))
	}
	return sortPending(rows), nil
}

// ConsumePending takes a session's entries in delivery order, in one
// immediate transaction: pick chooses which of them are delivered now (nil
// means all); the chosen entries that are not persistent are removed, so
// two concurrent consumers never both get one. It returns the chosen ones.
func (db *DB) ConsumePending(ctx context.Context, session string, pick func([]memory.PendingEntry) []memory.PendingEntry) ([]memory.PendingEntry, error) {
	var out []memory.PendingEntry
	// Most turns find nothing pending: outside a write transaction, a read
	// then spares them one, which concurrent hooks would wait for. In the
	// caller's write transaction it would be one more statement.
	if db.outer == nil || db.readOnly {
		var waiting bool
		if err := db.q().GetContext(ctx, &waiting, `SELECT EXISTS (SELECT 1 FROM pending_context WHERE session_id = ?)`, session); err != nil {
			return nil, fmt.Errorf("consuming pending context of %s: %w", session, mapErr(err))
		}
		if !waiting {
			return nil, nil
		}
	}
	err := db.tx(ctx, func(tx *sqlx.Tx) error {
		out = nil
		var rows []pendingRow
		if err := tx.SelectContext(ctx, &rows, `SELECT `+pendingCols+` FROM pending_context WHERE session_id = ?`, session); err != nil {
			return err
		}
		if len(rows) == 0 {
			return nil
		}
		// Each entry's row, so that what is taken goes in one statement
		// (rows read in this transaction keep their ids until it ends).
		row := make(map[[2]string]int64, len(rows))
		for _, r := range rows {
			row[[2]string{r.Source, r.EntryID}] = r.Seq
		}
		out = sortPending(rows)
		if pick != nil {
			out = pick(out)
		}
		var taken []int64
		for _, e := range out {
			if !e.Persistent {
				taken = append(taken, row[[2]string{e.Source, e.EntryID}])
			}
		}
		if len(taken) == 0 {
			return nil
		}
		ids, err := json.Marshal(taken)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM pending_context WHERE rowid IN (SELECT value FROM json_each(?))`, string(ids))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("consuming pending context of %s: %w", session, err)
	}
	return out, nil
}

// ClearPending drops every entry of a session, persistent ones included, and
// returns how many there were.
func (db *DB) ClearPending(ctx context.Context, session string) (int, error) {
	n, err := db.change(ctx, `DELETE FROM pending_context WHERE session_id = ?`, session)
	if err != nil {
		return 0, fmt.Errorf("clearing pending context of %s: %w", session, err)
	}
	return int(n), nil
}

func insertMark(ctx context.Context, tx *sqlx.Tx, session, kind, key string, at time.Time) (bool, error) {
	if at.IsZero() {
		at = time.Now()
	}
	res, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO session_marks (session_id, kind, key, created_at)
		VALUES (?, ?, ?, ?)`, session, kind, key, toMillis(at))
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// MarkOnce sets the marks (kind, key) of a session and returns the keys that
// were not set before, in the order given: the caller acts on those only.
func (db *DB) MarkOnce(ctx context.Context, session, kind string, keys []string, at time.Time) ([]string, error) {
	var fresh []string
	err := db.tx(ctx, func(tx *sqlx.Tx) error {
		fresh = fresh[:0]
		for _, k := range keys {
			ok, err := insertMark(ctx, tx, session, kind, k, at)
			if err != nil {
				return err
			}
			if ok {
				fresh = append(fresh, k)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("marking %s of session %s: %w", kind, session, err)
	}
	return fresh, nil
}

// Marked returns which of keys a session carries as marks of kind.
func (db *DB) Marked(ctx context.Context, session, kind string, keys []string) (map[string]bool, error) {
	out := make(map[string]bool, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	// One JSON parameter rather than one per key: a file's history asks
	// after sixty, and the statement is parsed at each call.
	list, err := json.Marshal(keys)
	if err != nil {
		return nil, err
	}
	var got []string
	if err := db.q().SelectContext(ctx, &got, `SELECT key FROM session_marks WHERE session_id = ? AND kind = ?
		AND key IN (SELECT value FROM json_each(?))`, session, kind, string(list)); err != nil {
		return nil, fmt.Errorf("reading %s marks of session %s: %w", kind, session, mapErr(err))
	}
	for _, k := range got {
		out[k] = true
	}
	return out, nil
}

// TouchMarks sets the marks (kind, key) of a session, moving the time of
// those already set to at, so RecentMarks sees them as new.
func (db *DB) TouchMarks(ctx context.Context, session, kind string, keys []string, at time.Time) error {
	if len(keys) == 0 {
		return nil
	}
	err := db.tx(ctx, func(tx *sqlx.Tx) error {
		for i, k := range keys {
			// Later keys of one call count as more recent.
			ms := toMillis(at) + int64(i)
			if _, err := tx.ExecContext(ctx, `INSERT INTO session_marks (session_id, kind, key, created_at)
				VALUES (?, ?, ?, ?) ON CONFLICT DO UPDATE SET created_at = max(created_at, excluded.created_at)`,
				session, kind, k, ms); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("marking %s of session %s: %w", kind, session, err)
	}
	return nil
}

// RecentMarks returns the keys of a session's newest marks of kind, newest first.
func (db *DB) RecentMarks(ctx context.Context, session, kind string, n int) ([]string, error) {
	var out []string
	err := db.q().SelectContext(ctx, &out, `SELECT key FROM session_marks WHERE session_id = ? AND kind = ?
		ORDER BY created_at DESC, key`+limit(limitOr(n, 10)), session, kind)
	if err != nil {
		return nil, fmt.Errorf("reading %s marks of session %s: %w", kind, session, mapErr(err))
	}
	return out, nil
}
