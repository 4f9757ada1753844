package store

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/memhq/mem/migrations"
)

// SchemaVersion is the version of the newest embedded migration. A database
// records the version it was migrated to in PRAGMA user_version, so a process
// opening an up-to-date file pays one pragma read, not a goose run.
func SchemaVersion() int64 {
	var latest int64
	entries, _ := fs.ReadDir(migrations.FS, ".")
	for _, e := range entries {
		prefix, _, ok := strings.Cut(e.Name(), "_")
		if !ok {
			continue
		}
		if v, err := strconv.ParseInt(prefix, 10, 64); err == nil && v > latest {
			latest = v
		}
	}
	return latest
}

// MigrationState describes where a database stands against this binary.
type MigrationState struct {
	Current int64 `json:"current"`
	Latest  int64 `json:"latest"`
}

// migrate brings the schema up to date. Several processes may open a fresh
// file at once (hooks fire together) and goose has no SQLite lock, so the
// run is serialised with a lock file beside the database.
func (db *DB) migrate(ctx context.Context) error {
	latest := SchemaVersion()
	v, err := db.userVersion(ctx)
	if err != nil {
		return fmt.Errorf("reading schema version of %s: %w", db.path, err)
	}
	switch {
	case v == latest:
		return nil
	case v > latest:
		return fmt.Errorf("%s has schema version %d, this mem knows up to %d: %w", db.path, v, latest, ErrNewerSchema)
	}
	p, err := db.provider()
	if err != nil {
		return err
	}
	// goose's own version queries create its table unlocked, so read it here.
	if cur := db.gooseVersion(ctx); cur > latest {
		return fmt.Errorf("%s has schema version %d, this mem knows up to %d: %w", db.path, cur, latest, ErrNewerSchema)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("migrating %s: %w", db.path, mapErr(err))
	}
	if _, err := db.x.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", latest)); err != nil {
		return fmt.Errorf("recording schema version of %s: %w", db.path, mapErr(err))
	}
	return nil
}

func (db *DB) provider() (*goose.Provider, error) {
	var lk lock.Locker = &fileLocker{path: db.path + ".migrate-lock"}
	if db.lockHeld {
		lk = heldLock{} // Open holds it; a second flock would wait for ourselves
	}
	p, err := goose.NewProvider(goose.DialectSQLite3, db.x.DB, migrations.FS, goose.WithLocker(lk))
	if err != nil {
		return nil, fmt.Errorf("loading migrations: %w", err)
	}
	return p, nil
}

// heldLock is the goose Locker when Open already holds the migration lock.
type heldLock struct{}

func (heldLock) Lock(context.Context, *sql.DB) error   { return nil }
func (heldLock) Unlock(context.Context, *sql.DB) error { return nil }

// gooseVersion returns the newest applied goose version, 0 when none.
func (db *DB) gooseVersion(ctx context.Context) int64 {
	var v sql.NullInt64
	err := db.x.QueryRowContext(ctx, "SELECT max(version_id) FROM goose_db_version WHERE is_applied").Scan(&v)
	if err != nil || !v.Valid {
		return 0
	}
	return v.Int64
}

func (db *DB) userVersion(ctx context.Context) (int64, error) {
	var v int64
	if err := db.x.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return 0, mapErr(err)
	}
	return v, nil
}

// Migrations reports the schema version of the file and of this binary,
// without changing anything.
func (db *DB) Migrations(ctx context.Context) (MigrationState, error) {
	v, err := db.userVersion(ctx)
	if err != nil {
		return MigrationState{}, err
	}
	st := MigrationState{Current: v, Latest: SchemaVersion()}
	if gv := db.gooseVersion(ctx); gv > v {
		// user_version is written after goose finishes; trust goose's table.
		st.Current = gv
	}
	return st, nil
}
