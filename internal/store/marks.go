package store

import (
	"context"
	"fmt"
	"time"
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
