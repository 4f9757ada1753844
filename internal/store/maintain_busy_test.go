package store

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/memhq/mem/internal/memory"
)

// openWaiting opens the database at path as a command does: a short busy
// timeout per statement, writes retried for wait.
func openWaiting(t *testing.T, path string, wait time.Duration) *DB {
	t.Helper()
	db, err := Open(context.Background(), path, Options{BusyTimeoutMillis: 20, Wait: wait})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// Another process holding the write lock for longer than the wait keeps
// every maintenance step from running: each is skipped and named, and the
// job does not fail; the next run does them.
func TestMaintainSkipsWhatStaysBusy(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "mem.db")
	db := openWaiting(t, path, 200*time.Millisecond)
	startTest(t, db, "s", "p")
	other := openWaiting(t, path, 0)
	hold, err := other.x.BeginTx(ctx, nil) // BEGIN IMMEDIATE: the write lock
	if err != nil {
		t.Fatal(err)
	}
	r, err := db.Maintain(ctx, time.Now())
	hold.Rollback()
	if err != nil {
		t.Fatalf("Maintain failed on a busy database: %v", err)
	}
	if len(r.Skipped) != 5 || !r.WALBusy || r.FTSOptimized != 0 {
		t.Fatalf("report %+v, want 5 steps skipped, the WAL busy, no index optimized", r)
	}
	if r, err = db.Maintain(ctx, time.Now()); err != nil || len(r.Skipped) != 0 || r.WALBusy {
		t.Fatalf("once free: %+v, %v", r, err)
	}
}

// A reader that keeps the WAL in use past the wait: the forget deletes, and
// says the WAL still holds the old pages (ErrWALKept) rather than failing;
// the next checkpoint empties it.
func TestForgetWithTheWALInUse(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "mem.db")
	db := openWaiting(t, path, 200*time.Millisecond)
	s := startTest(t, db, "gone", "p")
	if _, err := db.AddObservation(ctx, memory.Observation{SessionID: s.ID, Type: memory.TypeNote, Title: "to forget"}); err != nil {
		t.Fatal(err)
	}
	other := openWaiting(t, path, 0)
	reader, err := other.x.BeginTxx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := reader.Get(&n, `SELECT count(*) FROM observations`); err != nil {
		t.Fatal(err)
	}
	d, err := db.DeleteSession(ctx, s.ID)
	reader.Rollback()
	if !errors.Is(err, ErrWALKept) || d.Sessions != 1 || d.Observations != 1 {
		t.Fatalf("forget with the WAL in use: %+v, %v; want the session deleted and ErrWALKept", d, err)
	}
	if busy, _, err := db.truncateWAL(ctx); err != nil || busy {
		t.Fatalf("checkpoint once free: busy %v, %v", busy, err)
	}
}
