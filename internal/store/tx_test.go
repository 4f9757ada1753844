package store

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/memhq/mem/internal/memory"
)

// Write is one transaction the caller owns: the store's calls in it open
// none of their own, and a failure anywhere in it keeps none of them.
func TestWriteKeepsAllOrNothing(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	boom := errors.New("boom")
	err := db.Write(ctx, func(tx *DB) error {
		if !tx.InTx() {
			t.Error("the DB Write gives is not in a transaction")
		}
		if _, err := tx.EnsureSession(ctx, memory.Session{ID: "s", Project: "p"}); err != nil {
			return err
		}
		if _, err := tx.AddPrompt(ctx, "s", "first", time.Now()); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Write: %v, want boom", err)
	}
	if _, err := db.Session(ctx, "s"); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("the session of a failed Write was kept: %v", err)
	}
	if err := db.Write(ctx, func(tx *DB) error {
		if _, err := tx.EnsureSession(ctx, memory.Session{ID: "s", Project: "p"}); err != nil {
			return err
		}
		// Write on a DB already in a transaction runs in that one.
		return tx.Write(ctx, func(inner *DB) error {
			_, err := inner.AddPrompt(ctx, "s", "second", time.Now())
			return err
		})
	}); err != nil {
		t.Fatal(err)
	}
	if ps, err := db.Prompts(ctx, "s"); err != nil || len(ps) != 1 {
		t.Fatalf("prompts %v, %v; want the one of the committed Write", ps, err)
	}
}

// Read is one snapshot: what another connection commits meanwhile is not
// seen, and a write in it fails, leaving the database as it was.
func TestReadIsOneSnapshotAndWritesNothing(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	if _, err := db.EnsureSession(ctx, memory.Session{ID: "s", Project: "p"}); err != nil {
		t.Fatal(err)
	}
	err := db.Read(ctx, func(rx *DB) error {
		before, err := rx.Prompts(ctx, "s")
		if err != nil {
			return err
		}
		if _, err := db.AddPrompt(ctx, "s", "meanwhile", time.Now()); err != nil {
			return err
		}
		after, err := rx.Prompts(ctx, "s")
		if err != nil {
			return err
		}
		if len(before) != len(after) {
			t.Errorf("one Read saw %d prompts, then %d", len(before), len(after))
		}
		if _, err := rx.AddPrompt(ctx, "s", "in a read", time.Now()); err == nil {
			t.Error("a write in a Read succeeded")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ps, err := db.Prompts(ctx, "s")
	if err != nil || len(ps) != 1 || ps[0].Text != "meanwhile" {
		t.Fatalf("prompts %v, %v; want only the one written outside the Read", ps, err)
	}
}

// WithWait changes the wait of the DB it returns, not of the one it is
// called on.
func TestWithWaitIsACopy(t *testing.T) {
	db := openTest(t)
	db.wait = time.Minute
	if w := db.WithWait(0); w.wait != 0 || db.wait != time.Minute || w.x != db.x {
		t.Fatalf("WithWait(0): wait %s over the same pool %v; the original's %s", w.wait, w.x == db.x, db.wait)
	}
}

// A write in a Read fails at once, even with no other writer about: it
// would take the write lock only to be rolled back with the Read.
func TestAWriteInAReadFails(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	if _, err := db.EnsureSession(ctx, memory.Session{ID: "s", Project: "p"}); err != nil {
		t.Fatal(err)
	}
	err := db.Read(ctx, func(rx *DB) error {
		_, err := rx.EnsureSession(ctx, memory.Session{ID: "t", Project: "p"})
		return err
	})
	if err == nil {
		t.Error("a write in a Read succeeded")
	}
}

// A write whose function panics (a handler that mem web's server recovers)
// rolls its transaction back: the write lock is not kept, so the next write
// goes through at once.
func TestAPanickingWriteReleasesTheLock(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("the panic did not come through")
			}
		}()
		_ = db.Write(ctx, func(tx *DB) error {
			if _, err := tx.EnsureSession(ctx, memory.Session{ID: "lost", Project: "p"}); err != nil {
				return err
			}
			panic("a handler failed")
		})
	}()
	if _, err := db.WithWait(0).EnsureSession(ctx, memory.Session{ID: "s", Project: "p"}); err != nil {
		t.Fatalf("the next write: %v", err)
	}
	if _, err := db.Session(ctx, "lost"); err == nil {
		t.Error("the panicking write's session was kept")
	}
}
