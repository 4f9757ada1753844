package store

import (
	"context"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
)

// PutSessionMark records that something happened to a session (kind, key),
// once: first is false when the mark was already there.
func (db *DB) PutSessionMark(ctx context.Context, sessionID, kind, key string, at time.Time) (first bool, err error) {
	n, err := db.change(ctx, `INSERT INTO session_marks (session_id, kind, key, created_at) VALUES (?, ?, ?, ?)
		ON CONFLICT DO NOTHING`, sessionID, kind, key, toMillis(at))
	if err != nil {
		return false, fmt.Errorf("marking session %s: %w", sessionID, err)
	}
	return n == 1, nil
}

// TakeSessionMark removes a mark and reports whether it was there, so that
// exactly one caller acts on it.
func (db *DB) TakeSessionMark(ctx context.Context, sessionID, kind, key string) (bool, error) {
	n, err := db.change(ctx, `DELETE FROM session_marks WHERE session_id = ? AND kind = ? AND key = ?`,
		sessionID, kind, key)
	if err != nil {
		return false, fmt.Errorf("reading mark of session %s: %w", sessionID, err)
	}
	return n == 1, nil
}

// TakeSessionMarksWithPrefix removes a session's marks of a kind whose key
// starts with prefix and returns their keys, so that exactly one caller
// acts on them.
func (db *DB) TakeSessionMarksWithPrefix(ctx context.Context, sessionID, kind, prefix string) ([]string, error) {
	var keys []string
	err := db.tx(ctx, func(t *sqlx.Tx) error {
		return t.SelectContext(ctx, &keys, `DELETE FROM session_marks WHERE session_id = ? AND kind = ? AND key LIKE ? ESCAPE '\'
			RETURNING key`, sessionID, kind, likeEscape(prefix)+"%")
	})
	if err != nil {
		return nil, fmt.Errorf("taking marks of session %s: %w", sessionID, err)
	}
	return keys, nil
}
