package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/jmoiron/sqlx"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/database"
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
	if v == 0 && db.lockHeld && !db.stepwise {
		empty, err := db.empty(ctx)
		if err != nil {
			return err
		}
		if empty {
			return db.create(ctx)
		}
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

// empty reports whether the file holds no schema at all: a new database.
func (db *DB) empty(ctx context.Context) (bool, error) {
	var n int
	if err := db.x.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&n); err != nil {
		return false, fmt.Errorf("reading the schema of %s: %w", db.path, mapErr(err))
	}
	return n == 0, nil
}

// create makes a new database in one transaction: the schema the
// migrations build (migrations.Schema), goose's version table with every
// migration recorded as applied, and the schema version. Applying each
// migration in turn costs a new database about five times the CPU of a
// process that opens an existing one: each ALTER TABLE makes SQLite parse
// the whole schema again.
func (db *DB) create(ctx context.Context) error {
	versions, err := migrationVersions()
	if err != nil {
		return err
	}
	gs, err := database.NewStore(database.DialectSQLite3, goose.DefaultTablename)
	if err != nil {
		return fmt.Errorf("goose's version table: %w", err)
	}
	err = db.tx(ctx, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, migrations.Schema); err != nil {
			return err
		}
		if err := gs.CreateVersionTable(ctx, tx); err != nil {
			return err
		}
		for _, v := range append([]int64{0}, versions...) {
			if err := gs.Insert(ctx, tx, database.InsertRequest{Version: v}); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", versions[len(versions)-1]))
		return err
	})
	if err != nil {
		return fmt.Errorf("creating %s: %w", db.path, mapErr(err))
	}
	return nil
}

// migrationVersions lists the versions of the embedded migrations in order.
func migrationVersions() ([]int64, error) {
	entries, err := fs.ReadDir(migrations.FS, ".")
	if err != nil {
		return nil, fmt.Errorf("listing migrations: %w", err)
	}
	var vs []int64
	for _, e := range entries {
		if v, err := goose.NumericComponent(e.Name()); err == nil {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		return nil, errors.New("no migrations embedded")
	}
	slices.Sort(vs)
	return vs, nil
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
