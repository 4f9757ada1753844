package store

import (
	"context"
	"fmt"

	"github.com/jmoiron/sqlx"
)

// ProjectKeys lists every project that has a session, most recently active
// first (ties: by key): the viewer's project switcher. It reads the
// sessions index only, no counts.
func (db *DB) ProjectKeys(ctx context.Context) ([]string, error) {
	var out []string
	err := db.read(ctx, func(tx *sqlx.Tx) error {
		return tx.SelectContext(ctx, &out, `SELECT project FROM sessions GROUP BY project
			ORDER BY max(last_activity_at) DESC, project`)
	})
	if err != nil {
		return nil, fmt.Errorf("listing project keys: %w", err)
	}
	return out, nil
}
