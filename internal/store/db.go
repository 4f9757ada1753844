// Package store keeps mem's memory in one SQLite file. It is the only package
// that speaks SQL: it opens the file with the right pragmas, migrates it, and
// offers repositories over sessions, observations, summaries, prompts and
// pending context.
package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/memhq/mem/internal/fsafe"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Errors a caller can act on; the command line maps them to exit code 2.
var (
	// ErrNotDatabase: the path exists but is not a SQLite database.
	ErrNotDatabase = errors.New("not a SQLite database")
	// ErrIsDirectory: the path names a directory.
	ErrIsDirectory = errors.New("is a directory")
	// ErrNewerSchema: the file was written by a newer mem; it is not downgraded.
	ErrNewerSchema = errors.New("database was written by a newer version of mem")
	// ErrBusy: the database stayed locked for longer than the busy timeout.
	ErrBusy = errors.New("database is locked by another process")
	// ErrReadOnly: the database file or its folder cannot be written.
	ErrReadOnly = errors.New("database is read-only")
	// ErrFull: the disk or the file-size limit is full.
	ErrFull = errors.New("disk is full")
	// ErrWALKept: a forget deleted what it was asked to, but other
	// processes kept the WAL in use for longer than the wait, so it still
	// holds older copies of the pages until a checkpoint empties it (the
	// next forget's, mem summarize --maintain, the last process to close).
	ErrWALKept = errors.New("other processes kept the WAL in use, so it holds older copies of its pages until a checkpoint empties it (`mem summarize --maintain` does)")
	// ErrWrite: the operating system refused a write to the database file;
	// a file-size limit (ulimit -f) shows up as this rather than ErrFull.
	ErrWrite = errors.New("cannot write the database file (disk full, file-size limit or I/O error)")
)

// BusyTimeoutMillis is how long a statement waits for another writer.
const BusyTimeoutMillis = 5000

// DB is an open mem database.
type DB struct {
	x    *sqlx.DB
	path string
	// wait is how long a write keeps retrying a busy database (Options.Wait).
	wait time.Duration
	// outer is the transaction a DB handed to Write's, Read's or Apply's
	// fn runs in: every query goes through it.
	outer *sqlx.Tx
	// readOnly: outer is Read's, and a write in it fails (SQLite would take
	// the write lock for it, and Read rolls it back).
	readOnly bool
	// lockHeld: Open holds the migration lock already (a new file).
	lockHeld bool
	stepwise bool // Options.stepwise
	// importMode overrides how Import indexes, for the benchmarks that
	// compare the ways: importAuto, importRowByRow or importRebuild.
	importMode int
}

// Options tune Open.
type Options struct {
	// BusyTimeout overrides BusyTimeoutMillis (hooks wait less than people).
	BusyTimeoutMillis int
	// NoMigrate opens without migrating; used by doctor to inspect as is.
	NoMigrate bool
	// stepwise makes a new database by each migration in turn, as an
	// older one is brought up to date (tests compare the two ways).
	stepwise bool
	// Wait is how long opening and each write transaction keep retrying,
	// with jitter, a database another process holds, before they fail with
	// ErrBusy; each attempt waits up to the busy timeout. 0: one attempt.
	Wait time.Duration
	// Connector, when set, wraps the driver's connector: a test counts the
	// transactions a command takes through it.
	Connector func(driver.Connector) driver.Connector
}

// DSN returns the modernc.org/sqlite data source name for path: WAL, a busy
// timeout, foreign keys and immediate write transactions, set in the DSN so
// that every pooled connection gets them.
func DSN(path string, busyMillis int) string {
	if busyMillis <= 0 {
		busyMillis = BusyTimeoutMillis
	}
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyMillis))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "journal_size_limit(0)")
	// What is deleted is overwritten, so that forgotten text does not stay in
	// free pages or free space within pages.
	q.Add("_pragma", "secure_delete(1)")
	// Reading pages through a memory map rather than a read call each saves a
	// short process about a tenth of a search (measured: 30.8 -> 27.6 ms p50
	// at 100k observations). mem never VACUUMs, so a mapped file never shrinks
	// under another process.
	q.Add("_pragma", "mmap_size(268435456)")
	q.Set("_txlock", "immediate")
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// Open opens (creating if needed) the database at path and migrates it to
// the current schema. It creates parent folders, refuses a directory, a file
// that is not SQLite and a schema newer than this binary knows.
func Open(ctx context.Context, path string, opts Options) (*DB, error) {
	if err := checkPath(path); err != nil {
		return nil, err
	}
	if !opts.NoMigrate {
		makePrivate(path)
	}
	var lockHeld bool
	if !opts.NoMigrate && !inWALMode(path) {
		// A new file: the first connection switches it to WAL mode, which
		// needs an exclusive lock. Two processes doing that at once both
		// hold a shared lock and want to escalate, and SQLite answers one
		// of them SQLITE_BUSY at once instead of waiting (deadlock
		// avoidance). So first opens take turns under the migration lock.
		lk := &fileLocker{path: path + ".migrate-lock"}
		if err := lk.Lock(ctx, nil); err != nil {
			return nil, err
		}
		defer lk.Unlock(ctx, nil)
		lockHeld = true
	}
	base, err := sqlite.NewConnector(DSN(path, opts.BusyTimeoutMillis))
	if err != nil {
		return nil, fmt.Errorf("opening database %s: %w", path, err)
	}
	var conn driver.Connector = keepWAL{base}
	if opts.Connector != nil {
		conn = opts.Connector(conn)
	}
	conn = cacheStatements{conn}
	x := sqlx.NewDb(sql.OpenDB(conn), "sqlite")
	db := &DB{x: x, path: path, lockHeld: lockHeld, wait: opts.Wait, stepwise: opts.stepwise}
	if !opts.NoMigrate {
		if err := db.retry(ctx, func() error { return db.migrate(ctx) }); err != nil {
			x.Close()
			return nil, err
		}
	}
	return db, nil
}

// keepWAL opens connections that leave the -wal and -shm files in place when
// the last one closes. mem runs as many short processes; without it each
// one created both files and deleted them again on exit, which cost a
// writer about a third of its run (README). journal_size_limit(0)
// still truncates the WAL to nothing after the closing checkpoint.
type keepWAL struct{ driver.Connector }

func (k keepWAL) Connect(ctx context.Context) (driver.Conn, error) {
	c, err := k.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	if fc, ok := c.(sqlite.FileControl); ok {
		if _, err := fc.FileControlPersistWAL("main", 1); err != nil {
			c.Close()
			return nil, fmt.Errorf("keeping the WAL file: %w", err)
		}
	}
	return c, nil
}

// inWALMode reports whether path is a SQLite file already switched to WAL
// mode (header bytes 18 and 19 are 2), so opening it changes nothing.
func inWALMode(path string) bool {
	f, err := fsafe.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 20)
	if n, _ := f.Read(head); n < 20 {
		return false
	}
	return head[18] == 2 && head[19] == 2
}

// checkPath rejects a directory, a FIFO, a device, a socket or a non-SQLite
// file before SQLite sees it, so the file is left untouched and nothing
// blocks on it, and creates the parent folder of a new file.
func checkPath(path string) error {
	if path == "" {
		return errors.New("database path is empty")
	}
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return fmt.Errorf("database %s: %w", path, ErrIsDirectory)
	case err == nil && !fi.Mode().IsRegular():
		// Opening a FIFO waits for a writer forever; a device is no file.
		return fmt.Errorf("database %s: %w (it is %s)", path, ErrNotDatabase, fsafe.Kind(fi.Mode()))
	case err == nil:
		if fi.Size() == 0 {
			return nil
		}
		f, err := fsafe.Open(path)
		if errors.Is(err, fsafe.ErrNotRegular) {
			// Swapped for something else since the Stat.
			return fmt.Errorf("database %s: %w: %w", path, ErrNotDatabase, err)
		}
		if err != nil {
			return fmt.Errorf("opening database %s: %w", path, mapOSError(err))
		}
		defer f.Close()
		head := make([]byte, 16)
		n, _ := f.Read(head)
		if n < 16 || string(head) != "SQLite format 3\x00" {
			return fmt.Errorf("database %s: %w", path, ErrNotDatabase)
		}
		return nil
	case errors.Is(err, os.ErrNotExist):
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return fmt.Errorf("creating folder for database %s: %w", path, mapOSError(err))
		}
		// SQLite creates a new file 0644 (less the umask) and gives the
		// -wal and -shm files it creates the database file's mode: an
		// empty file made 0600 first keeps all three private.
		if err := fsafe.CreatePrivate(path); err != nil {
			return fmt.Errorf("creating database %s: %w", path, mapOSError(err))
		}
		return nil
	default:
		return fmt.Errorf("checking database %s: %w", path, err)
	}
}

// DBFiles are the files SQLite keeps for the database at path: the file,
// its WAL and its shared memory.
func DBFiles(path string) []string {
	return []string{path, path + "-wal", path + "-shm"}
}

// makePrivate takes from the database's files what other users may do with
// them, as an older mem created them 0644; the files are mem's own. A file
// of another user stays as it is (doctor names it).
func makePrivate(path string) {
	for _, f := range DBFiles(path) {
		_, _, _ = fsafe.MakePrivate(f)
	}
}

func mapOSError(err error) error {
	if errors.Is(err, os.ErrPermission) {
		return fmt.Errorf("%w: %w", ErrReadOnly, err)
	}
	return err
}

// Path returns the database file path.
func (db *DB) Path() string { return db.path }

// Close closes the database.
func (db *DB) Close() error { return db.x.Close() }

// SQL exposes the underlying handle to the store's tests and tools.
func (db *DB) SQL() *sqlx.DB { return db.x }

// Write runs fn in one immediate write transaction and commits it, or
// rolls back when fn fails; a busy database is retried for up to the wait.
// Every query of the DB fn is given goes through that transaction: the
// store's methods called on it open none of their own. Called on a DB that
// is already in a transaction, it runs fn in that one (in a Read's, it
// fails).
func (db *DB) Write(ctx context.Context, fn func(*DB) error) error {
	return db.tx(ctx, func(t *sqlx.Tx) error { return fn(db.in(t, false)) })
}

// Read runs fn in one read-only transaction: everything fn reads through
// the DB it is given comes from one snapshot, and a write fails. Called on
// a DB that is already in a transaction, it runs fn in that one.
func (db *DB) Read(ctx context.Context, fn func(*DB) error) error {
	return db.read(ctx, func(t *sqlx.Tx) error { return fn(db.in(t, true)) })
}

// in returns db bound to the transaction t, Read's when readOnly.
func (db *DB) in(t *sqlx.Tx, readOnly bool) *DB {
	if db.outer == t {
		return db
	}
	return &DB{x: db.x, path: db.path, wait: db.wait, outer: t, readOnly: readOnly, importMode: db.importMode}
}

// InTx reports whether db runs its queries in a transaction (Write's or
// Read's).
func (db *DB) InTx() bool { return db.outer != nil }

// tx runs fn in an immediate write transaction and commits it, or rolls back
// when fn fails; a busy database is retried for up to db.wait. In a
// transaction already (Write's, Read's), fn runs in it: the caller owns it.
// SQLite errors are mapped to the store's errors.
func (db *DB) tx(ctx context.Context, fn func(*sqlx.Tx) error) error {
	if db.readOnly {
		return errWriteInRead
	}
	if db.outer != nil {
		return mapErr(fn(db.outer))
	}
	return db.retry(ctx, func() error {
		t, err := db.x.BeginTxx(ctx, nil)
		if err != nil {
			return mapErr(err)
		}
		return commitOrRollback(t, fn)
	})
}

// commitOrRollback runs fn in t and commits, or rolls back when fn fails
// or panics (the panic goes on, without the write lock held).
func commitOrRollback(t *sqlx.Tx, fn func(*sqlx.Tx) error) error {
	defer func() {
		if r := recover(); r != nil {
			_ = t.Rollback()
			panic(r)
		}
	}()
	if err := fn(t); err != nil {
		_ = t.Rollback()
		return mapErr(err)
	}
	return mapErr(t.Commit())
}

// errWriteInRead is what a write in a Read's transaction fails with.
var errWriteInRead = errors.New("store: a write in a read-only transaction")

// read runs fn in a read-only transaction, so it sees one snapshot.
func (db *DB) read(ctx context.Context, fn func(*sqlx.Tx) error) error {
	if db.outer != nil {
		return mapErr(fn(db.outer))
	}
	t, err := db.x.BeginTxx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return mapErr(err)
	}
	defer t.Rollback()
	return mapErr(fn(t))
}

// runner is where a single statement runs: the database, or Apply's
// transaction.
type runner interface {
	sqlx.ExtContext
	GetContext(ctx context.Context, dest any, query string, args ...any) error
	SelectContext(ctx context.Context, dest any, query string, args ...any) error
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// q returns where a single statement runs.
func (db *DB) q() runner {
	if db.outer != nil {
		return db.outer
	}
	return db.x
}

// mapErr turns SQLite result codes into the store's errors, keeping the
// original in the chain: both errors.Is(err, ErrBusy) and
// errors.As(err, **sqlite.Error) hold above it. An error it already mapped
// is returned as it is.
func mapErr(err error) error {
	if err == nil {
		return nil
	}
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return err
	}
	for _, known := range []error{ErrBusy, ErrNotDatabase, ErrReadOnly, ErrFull, ErrWrite} {
		if errors.Is(err, known) {
			return err
		}
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return fmt.Errorf("%w: %w", ErrBusy, err)
	case sqlite3.SQLITE_NOTADB:
		return fmt.Errorf("%w: %w", ErrNotDatabase, err)
	case sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM:
		return fmt.Errorf("%w: %w", ErrReadOnly, err)
	case sqlite3.SQLITE_FULL:
		return fmt.Errorf("%w: %w", ErrFull, err)
	case sqlite3.SQLITE_IOERR:
		if se.Code() == sqlite3.SQLITE_IOERR_WRITE {
			return fmt.Errorf("%w: %w", ErrWrite, err)
		}
	}
	return err
}

// isUniqueViolation reports a UNIQUE or PRIMARY KEY constraint failure.
func isUniqueViolation(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	c := se.Code()
	return c == sqlite3.SQLITE_CONSTRAINT_UNIQUE || c == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
}

// likeEscape escapes LIKE wildcards; use with ESCAPE '\'.
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

func isNoRows(err error) bool { return errors.Is(err, sql.ErrNoRows) }
