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
// file at once (hooks fire together), so the whole of it runs under a lock
// file beside the database: Open holds it already for a file not yet in WAL
// mode, otherwise it is taken here. Goose's own locker would not do: its
// pending check creates the version table before it locks, which raced a
// process making the file in one transaction.
func (db *DB) migrate(ctx context.Context) error {
	latest := SchemaVersion()
	v, err := db.schemaVersion(ctx, latest)
	if err != nil || v == latest {
		return err
	}
	if !db.lockHeld {
		lk := &fileLocker{path: db.path + ".migrate-lock"}
		if err := lk.Lock(ctx, nil); err != nil {
			return err
		}
		defer lk.Unlock(ctx, nil)
		// Another process may have migrated the file while this one waited.
		if v, err = db.schemaVersion(ctx, latest); err != nil || v == latest {
			return err
		}
	}
	if cur := db.gooseVersion(ctx); cur > latest {
		return db.newerSchema(cur, latest)
	}
	if v == 0 && !db.stepwise {
		created, err := db.create(ctx)
		if err != nil || created {
			return err
		}
	}
	p, err := db.provider()
	if err != nil {
		return err
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("migrating %s: %w", db.path, mapErr(err))
	}
	if _, err := db.x.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", latest)); err != nil {
		return fmt.Errorf("recording schema version of %s: %w", db.path, mapErr(err))
	}
	return nil
}

// schemaVersion reads the file's schema version and refuses one newer than
// latest.
func (db *DB) schemaVersion(ctx context.Context, latest int64) (int64, error) {
	v, err := db.userVersion(ctx)
	if err != nil {
		return 0, fmt.Errorf("reading schema version of %s: %w", db.path, err)
	}
	if v > latest {
		return 0, db.newerSchema(v, latest)
	}
	return v, nil
}

// newerSchema is the error of a file at schema version v, past latest.
func (db *DB) newerSchema(v, latest int64) error {
	return fmt.Errorf("%s has schema version %d, this mem knows up to %d: %w", db.path, v, latest, ErrNewerSchema)
}

// create makes a new database in one transaction: the schema the
// migrations build (migrations.Schema), goose's version table with every
// migration recorded as applied, and the schema version. Applying each
// migration in turn costs a new database about five times the CPU of a
// process that opens an existing one: each ALTER TABLE makes SQLite parse
// the whole schema again. It does nothing, and returns false, when the file
// holds any schema at all (checked inside the write transaction): that one
// is brought up to date by the migrations.
func (db *DB) create(ctx context.Context) (bool, error) {
	versions, err := migrationVersions()
	if err != nil {
		return false, err
	}
	gs, err := database.NewStore(database.DialectSQLite3, goose.DefaultTablename)
	if err != nil {
		return false, fmt.Errorf("goose's version table: %w", err)
	}
	var created bool
	err = db.tx(ctx, func(tx *sqlx.Tx) error {
		created = false
		var n int
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_schema").Scan(&n); err != nil || n > 0 {
			return err
		}
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
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", versions[len(versions)-1])); err != nil {
			return err
		}
		created = true
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("creating %s: %w", db.path, mapErr(err))
	}
	return created, nil
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

// provider is goose over the embedded migrations, without a locker: its
// caller holds the migration lock.
func (db *DB) provider() (*goose.Provider, error) {
	p, err := goose.NewProvider(goose.DialectSQLite3, db.x.DB, migrations.FS)
	if err != nil {
		return nil, fmt.Errorf("loading migrations: %w", err)
	}
	return p, nil
}

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
