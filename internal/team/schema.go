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

// The cluster's schema, in SQLite's dialect, versioned by mem_meta's
// schema_version.
//
// mem_records holds one row per synced key: its newest version, or its
// tombstone. seq is the cluster's sequence: every insert or replacement
// takes max(seq)+1, and since rqlite applies writes one at a time in log
// order, a reader never sees a seq below one it already saw appear later.
// A pull reads a project's rows above its cursor, in seq order.
//
// Versions:
//   - 1: mem_records with a uuid column that nothing read (the record's id,
//     already in its key and body). Clusters made at version 1 keep it: mem
//     fills it with an empty string and never migrates it away, so no row
//     is rewritten (readMeta reads which shape a cluster has).
//   - 2: mem_records without uuid, for new clusters only: a mem that knows
//     only version 1 refuses such a cluster instead of failing on the
//     missing column.
//   - 3: sessions are named by id and project (memory.TeamSessionID) in keys
//     and records. Nothing is rewritten: rows under plain ids stay readable
//     and are read as the project's; the version only keeps a mem that
//     names sessions by their plain id, and would mix two projects' sessions
//     of one id, from syncing.
var clusterSchema = []string{
	`CREATE TABLE IF NOT EXISTS mem_records (
		seq     INTEGER NOT NULL UNIQUE,
		key     TEXT PRIMARY KEY,
		kind    TEXT NOT NULL,
		project TEXT NOT NULL,
		origin  TEXT NOT NULL,
		stamp   INTEGER NOT NULL,
		body    TEXT NOT NULL
	)`,
	`CREATE INDEX IF NOT EXISTS mem_records_project_seq ON mem_records (project, seq)`,
}

// clusterMigrations[v] takes an existing cluster from version v-1 to v, in
// one transaction, its statements idempotent (a version cut off is simply
// applied again). A version without one (nil) changes only what a new
// cluster gets: nothing is applied to an older cluster for it.
var clusterMigrations = [][]string{
	1: nil,        // made whole by clusterSchema
	2: nil,        // the uuid column stays where it is
	3: []string{}, // the version alone
}

// clusterVersion is the newest version this mem knows, the one it makes.
func clusterVersion() int { return len(clusterMigrations) - 1 }

// pendingMigrations reports whether a cluster at version v has migrations
// to apply.
func pendingMigrations(v int) bool {
	for next := v + 1; next <= clusterVersion(); next++ {
		if clusterMigrations[next] != nil {
			return true
		}
	}
	return false
}

// clusterInfo is what a sync needs to know of the cluster.
type clusterInfo struct {
	id      string
	version int
	// uuidColumn: mem_records has the version-1 uuid column, which an
	// insert must fill.
	uuidColumn bool
}

// lockLease is how long a migration lock holds without being released: a
// process killed while migrating delays the next one by at most this.
const lockLease = 30 * time.Second

// ensureSchema creates or migrates the cluster's schema and returns what
// it is: the cluster's id (made once, when the schema is first created)
// and the shape of mem_records. The usual case, a cluster up to date, costs
// one read.
func ensureSchema(ctx context.Context, c *client, now func() time.Time) (clusterInfo, error) {
	info, err := readMeta(ctx, c)
	if err == nil && info.id != "" && info.version >= 1 && info.version <= clusterVersion() && !pendingMigrations(info.version) {
		return info, nil
	}
	if err != nil && !strings.Contains(err.Error(), "no such table") {
		return clusterInfo{}, fmt.Errorf("reading the cluster's schema version: %w", err)
	}
	if info.version > clusterVersion() {
		return clusterInfo{}, newerSchema(info.version)
	}
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	if _, err := c.execute(ctx, true, []stmt{
		st(`CREATE TABLE IF NOT EXISTS mem_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`),
		st(`CREATE TABLE IF NOT EXISTS mem_locks (name TEXT PRIMARY KEY, holder TEXT NOT NULL, expires_at INTEGER NOT NULL)`),
		st(`INSERT OR IGNORE INTO mem_meta (key, value) VALUES ('cluster_id', ?)`, hex.EncodeToString(b)),
		st(`INSERT OR IGNORE INTO mem_meta (key, value) VALUES ('schema_version', '0')`),
	}); err != nil {
		return clusterInfo{}, fmt.Errorf("creating the cluster's schema: %w", err)
	}
	holder := hex.EncodeToString(b[:8])
	if err := lockMigrations(ctx, c, holder, now); err != nil {
		return clusterInfo{}, err
	}
	defer func() {
		_, _ = c.execute(context.WithoutCancel(ctx), false, []stmt{
			st(`DELETE FROM mem_locks WHERE name = 'migrate' AND holder = ?`, holder)})
	}()
	// Read again under the lock: another member may have migrated.
	info, err = readMeta(ctx, c)
	if err != nil {
		return clusterInfo{}, fmt.Errorf("reading the cluster's schema version: %w", err)
	}
	if info.version > clusterVersion() {
		return clusterInfo{}, newerSchema(info.version)
	}
	if info.version == 0 {
		// A new cluster: the newest schema, whole, with its version.
		stmts := make([]stmt, 0, len(clusterSchema)+1)
		for _, q := range clusterSchema {
			stmts = append(stmts, st(q))
		}
		stmts = append(stmts, st(`UPDATE mem_meta SET value = ? WHERE key = 'schema_version'`, strconv.Itoa(clusterVersion())))
		if _, err := c.execute(ctx, true, stmts); err != nil {
			return clusterInfo{}, fmt.Errorf("creating the cluster's schema version %d: %w", clusterVersion(), err)
		}
		// Read again: a table left by an older mem keeps its shape.
		if info, err = readMeta(ctx, c); err != nil {
			return clusterInfo{}, fmt.Errorf("reading the cluster's schema version: %w", err)
		}
		return info, nil
	}
	for next := info.version + 1; next <= clusterVersion(); next++ {
		if clusterMigrations[next] == nil {
			continue
		}
		stmts := make([]stmt, 0, len(clusterMigrations[next])+1)
		for _, q := range clusterMigrations[next] {
			stmts = append(stmts, st(q))
		}
		stmts = append(stmts, st(`UPDATE mem_meta SET value = ? WHERE key = 'schema_version'`, strconv.Itoa(next)))
		if _, err := c.execute(ctx, true, stmts); err != nil {
			return clusterInfo{}, fmt.Errorf("migrating the cluster to schema version %d: %w", next, err)
		}
		info.version = next
	}
	return info, nil
}

func newerSchema(v int) error {
	return fmt.Errorf("cluster schema version %d, this mem knows up to %d: %w", v, clusterVersion(), ErrNewerSchema)
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

// readMeta returns the cluster's id, schema version and shape, in one
// request.
func readMeta(ctx context.Context, c *client) (clusterInfo, error) {
	res, err := c.query(ctx, []stmt{
		st(`SELECT key, value FROM mem_meta WHERE key IN ('cluster_id', 'schema_version')`),
		st(`SELECT count(*) FROM pragma_table_info('mem_records') WHERE name = 'uuid'`),
	})
	if err != nil {
		return clusterInfo{}, err
	}
	var info clusterInfo
	if len(res) != 2 {
		return info, fmt.Errorf("the cluster answered %d results to 2 queries", len(res))
	}
	for _, row := range res[0].Values {
		if len(row) != 2 {
			continue
		}
		switch asString(row[0]) {
		case "cluster_id":
			info.id = asString(row[1])
		case "schema_version":
			info.version, _ = strconv.Atoi(asString(row[1]))
		}
	}
	if v := res[1].Values; len(v) == 1 && len(v[0]) == 1 {
		info.uuidColumn = asInt(v[0][0]) == 1
	}
	return info, nil
}
