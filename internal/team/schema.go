package team

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// clusterMigrations are the versions of the cluster's schema, in SQLite's
// dialect, applied in order by ensureSchema. Each statement is idempotent
// (IF NOT EXISTS), so a version cut off half way is simply applied again.
//
// mem_records holds one row per synced key: its newest version, or its
// tombstone. seq is the cluster's sequence: every insert or replacement
// takes max(seq)+1, and since rqlite applies writes one at a time in log
// order, a reader never sees a seq below one it already saw appear later.
// A pull reads a project's rows above its cursor, in seq order.
var clusterMigrations = [][]string{
	1: {
		`CREATE TABLE IF NOT EXISTS mem_records (
			seq     INTEGER NOT NULL UNIQUE,
			key     TEXT PRIMARY KEY,
			kind    TEXT NOT NULL,
			uuid    TEXT NOT NULL,
			project TEXT NOT NULL,
			origin  TEXT NOT NULL,
			stamp   INTEGER NOT NULL,
			body    TEXT NOT NULL
		)`,
		`CREATE INDEX IF NOT EXISTS mem_records_project_seq ON mem_records (project, seq)`,
	},
}

// clusterVersion is the newest version this mem knows.
func clusterVersion() int { return len(clusterMigrations) - 1 }

// lockLease is how long a migration lock holds without being released: a
// process killed while migrating delays the next one by at most this.
const lockLease = 30 * time.Second

// ensureSchema creates or migrates the cluster's schema and returns the
// cluster's id (made once, when the schema is first created). The usual
// case, a cluster already up to date, costs one read.
func ensureSchema(ctx context.Context, c *client, now func() time.Time) (string, error) {
	id, v, err := readMeta(ctx, c)
	if err == nil && v == clusterVersion() && id != "" {
		return id, nil
	}
	if err != nil && !strings.Contains(err.Error(), "no such table") {
		return "", fmt.Errorf("reading the cluster's schema version: %w", err)
	}
	if v > clusterVersion() {
		return "", fmt.Errorf("cluster schema version %d, this mem knows up to %d: %w", v, clusterVersion(), ErrNewerSchema)
	}
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	if _, err := c.execute(ctx, true, []stmt{
		st(`CREATE TABLE IF NOT EXISTS mem_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`),
		st(`CREATE TABLE IF NOT EXISTS mem_locks (name TEXT PRIMARY KEY, holder TEXT NOT NULL, expires_at INTEGER NOT NULL)`),
		st(`INSERT OR IGNORE INTO mem_meta (key, value) VALUES ('cluster_id', ?)`, hex.EncodeToString(b)),
		st(`INSERT OR IGNORE INTO mem_meta (key, value) VALUES ('schema_version', '0')`),
	}); err != nil {
		return "", fmt.Errorf("creating the cluster's schema: %w", err)
	}
	holder := hex.EncodeToString(b[:8])
	if err := lockMigrations(ctx, c, holder, now); err != nil {
		return "", err
	}
	defer func() {
		_, _ = c.execute(context.WithoutCancel(ctx), false, []stmt{
			st(`DELETE FROM mem_locks WHERE name = 'migrate' AND holder = ?`, holder)})
	}()
	// Read again under the lock: another member may have migrated.
	id, v, err = readMeta(ctx, c)
	if err != nil {
		return "", fmt.Errorf("reading the cluster's schema version: %w", err)
	}
	if v > clusterVersion() {
		return "", fmt.Errorf("cluster schema version %d, this mem knows up to %d: %w", v, clusterVersion(), ErrNewerSchema)
	}
	for next := v + 1; next <= clusterVersion(); next++ {
		stmts := make([]stmt, 0, len(clusterMigrations[next])+1)
		for _, q := range clusterMigrations[next] {
			stmts = append(stmts, st(q))
		}
		stmts = append(stmts, st(`UPDATE mem_meta SET value = ? WHERE key = 'schema_version'`, strconv.Itoa(next)))
		if _, err := c.execute(ctx, true, stmts); err != nil {
			return "", fmt.Errorf("migrating the cluster to schema version %d: %w", next, err)
		}
	}
	return id, nil
}

// lockMigrations takes the cluster's migration lock, waiting while another
// live member holds it; a lock whose lease ran out is taken over.
func lockMigrations(ctx context.Context, c *client, holder string, now func() time.Time) error {
	for {
		t := now()
		res, err := c.execute(ctx, false, []stmt{st(`INSERT INTO mem_locks (name, holder, expires_at) VALUES ('migrate', ?, ?)
			ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
			WHERE mem_locks.expires_at < ? OR mem_locks.holder = excluded.holder`,
			holder, t.Add(lockLease).UnixMilli(), t.UnixMilli())})
		if err != nil {
			return fmt.Errorf("taking the cluster's migration lock: %w", err)
		}
		if len(res) == 1 && res[0].RowsAffected == 1 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for the cluster's migration lock: %w", ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// readMeta returns the cluster's id and schema version.
func readMeta(ctx context.Context, c *client) (string, int, error) {
	res, err := c.query(ctx, []stmt{st(`SELECT key, value FROM mem_meta WHERE key IN ('cluster_id', 'schema_version')`)})
	if err != nil {
		return "", 0, err
	}
	var id string
	v := 0
	for _, row := range res[0].Values {
		if len(row) != 2 {
			continue
		}
		switch asString(row[0]) {
		case "cluster_id":
			id = asString(row[1])
		case "schema_version":
			v, _ = strconv.Atoi(asString(row[1]))
		}
	}
	return id, v, nil
}
