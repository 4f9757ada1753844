package store

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/jmoiron/sqlx"
)

// WithWait returns db whose writes retry a busy database for d (0: one
// attempt) instead of Options.Wait. db itself is unchanged.
func (db *DB) WithWait(d time.Duration) *DB {
	c := *db
	c.wait = d
	return &c
}

// retry calls fn until it succeeds, fails with something other than
// ErrBusy, or db.wait has passed. Between attempts
// it pauses a random 10-60 ms, so processes that collided do not collide
// again in step.
func (db *DB) retry(ctx context.Context, fn func() error) error {
	wait := db.wait
	deadline := time.Now().Add(wait)
	for {
		err := fn()
		if wait <= 0 || !errors.Is(err, ErrBusy) {
			return err
		}
		pause := time.Duration(10+rand.IntN(50)) * time.Millisecond
		if time.Now().Add(pause).After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(pause):
		}
	}
}

// change runs one writing statement as a transaction of its own (retried
// like every write) and returns the number of rows it changed.
func (db *DB) change(ctx context.Context, query string, args ...any) (int64, error) {
	var n int64
	err := db.tx(ctx, func(t *sqlx.Tx) error {
		res, err := t.ExecContext(ctx, query, args...)
		if err != nil {
			return err
		}
		n, _ = res.RowsAffected()
		return nil
	})
	return n, err
}

// Apply runs fn in one write transaction, as Write does, and does it once (with an id):
// when applied_events holds it, fn is not run and applied is false;
// otherwise the id is recorded in the same transaction as fn's changes.
// Called on a DB already in a transaction (a drain applying several
// events in one), it runs fn in a savepoint of that one: when fn fails,
// none of its changes are kept, and what came before stays.
func (db *DB) Apply(ctx context.Context, id string, fn func(*DB) error) (applied bool, err error) {
	write := db.Write
	if db.outer != nil && !db.readOnly {
		write = func(ctx context.Context, fn func(*DB) error) error {
			return savepoint(ctx, db.outer, func(*sqlx.Tx) error { return fn(db) })
		}
	}
	err = write(ctx, func(tx *DB) error {
		applied = false
		if id != "" {
			var n int
			if err := tx.outer.GetContext(ctx, &n, `SELECT count(*) FROM applied_events WHERE id = ?`, id); err != nil {
				return err
			}
			if n > 0 {
				return nil
			}
		}
		if err := fn(tx); err != nil {
			return err
		}
		if id != "" {
			if _, err := tx.outer.ExecContext(ctx, `INSERT INTO applied_events (id) VALUES (?)`, id); err != nil {
				return err
			}
		}
		applied = true
		return nil
	})
	return applied, err
}

// PruneApplied forgets the ids of applied events that sort before before.
func (db *DB) PruneApplied(ctx context.Context, before string) error {
	_, err := db.change(ctx, `DELETE FROM applied_events WHERE id < ?`, before)
	return err
}

// savepoint runs fn inside t, undoing what fn did when it fails.
func savepoint(ctx context.Context, t *sqlx.Tx, fn func(*sqlx.Tx) error) error {
	if _, err := t.ExecContext(ctx, "SAVEPOINT nested"); err != nil {
		return mapErr(err)
	}
	if err := fn(t); err != nil {
		_, _ = t.ExecContext(ctx, "ROLLBACK TO nested")
		_, _ = t.ExecContext(ctx, "RELEASE nested")
		return mapErr(err)
	}
	_, err := t.ExecContext(ctx, "RELEASE nested")
	return mapErr(err)
}
