package store

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/memhq/mem/internal/memory"
)

// holdWrite takes the write lock of db's file from another connection pool
// (as another process would) and returns the function that releases it.
func holdWrite(t *testing.T, path string) (release func()) {
	t.Helper()
	other, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	tx, err := other.x.BeginTxx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(`UPDATE sessions SET cwd = cwd`); err != nil {
		t.Fatal(err)
	}
	return func() {
		tx.Rollback()
		other.Close()
	}
}

func TestApplyOnce(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	startTest(t, db, "s", "p")
	prompt := func(tx *DB) error {
		_, err := tx.AddPrompt(ctx, "s", "once", time.Now())
		return err
	}
	for i, want := range []bool{true, false, false} {
		applied, err := db.Apply(ctx, "event-1", prompt)
		if err != nil || applied != want {
			t.Fatalf("apply %d: applied %v, %v; want %v", i, applied, err, want)
		}
	}
	if ps, _ := db.Prompts(ctx, "s"); len(ps) != 1 {
		t.Fatalf("%d prompts after applying one event three times, want 1", len(ps))
	}
	// A failure rolls back everything the event did, its id included.
	boom := errors.New("boom")
	_, err := db.Apply(ctx, "event-2", func(tx *DB) error {
		if err := prompt(tx); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("got %v, want boom", err)
	}
	if ps, _ := db.Prompts(ctx, "s"); len(ps) != 1 {
		t.Fatalf("%d prompts after a failed apply, want 1", len(ps))
	}
	if applied, err := db.Apply(ctx, "event-2", prompt); !applied || err != nil {
		t.Fatalf("retry of a failed event: applied %v, %v", applied, err)
	}
	// Inside Apply, a store call that fails undoes only itself.
	_, err = db.Apply(ctx, "", func(tx *DB) error {
		if err := prompt(tx); err != nil {
			return err
		}
		if _, err := tx.AddObservation(ctx, memory.Observation{SessionID: "missing", Type: memory.TypeNote, Title: "x"}); err == nil {
			t.Error("observation of a missing session was accepted")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if ps, _ := db.Prompts(ctx, "s"); len(ps) != 3 {
		t.Fatalf("%d prompts, want 3", len(ps))
	}
	if err := db.PruneApplied(ctx, "event-2"); err != nil {
		t.Fatal(err)
	}
	var ids []string
	if err := db.x.Select(&ids, `SELECT id FROM applied_events`); err != nil || len(ids) != 1 || ids[0] != "event-2" {
		t.Fatalf("after pruning before event-2: %v, %v", ids, err)
	}
}

func TestWritesWaitForABusyDatabase(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "mem.db")
	for _, tc := range []struct {
		name    string
		wait    time.Duration
		holdFor time.Duration
		busy    bool
	}{
		{"no wait", 0, 400 * time.Millisecond, true},
		{"waits past the busy timeout", 2 * time.Second, 400 * time.Millisecond, false},
		{"gives up after its wait", 200 * time.Millisecond, time.Second, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, err := Open(ctx, path, Options{BusyTimeoutMillis: 50, Wait: tc.wait})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			release := holdWrite(t, path)
			timer := time.AfterFunc(tc.holdFor, release)
			defer func() {
				if timer.Stop() {
					release()
				}
			}()
			start := time.Now()
			_, _, err = db.StartSession(ctx, memory.Session{ID: tc.name, Project: "p"})
			if busy := errors.Is(err, ErrBusy); busy != tc.busy {
				t.Fatalf("after %v: err %v, want busy %v", time.Since(start), err, tc.busy)
			}
			if took := time.Since(start); tc.busy && took > tc.wait+500*time.Millisecond {
				t.Fatalf("gave up after %v, wait %v", took, tc.wait)
			}
		})
	}
}

func TestDoctorTellsBusyFromDamaged(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "mem.db")
	db, err := Open(ctx, path, Options{BusyTimeoutMillis: 50, Wait: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	release := holdWrite(t, path)
	defer release()
	busy := 0
	for _, c := range db.Doctor(ctx) {
		if !c.OK {
			t.Errorf("%s: not ok while another process writes: %s", c.Name, c.Detail)
		}
		if c.Busy {
			busy++
		}
	}
	if busy != len(ftsTables) {
		t.Errorf("%d checks busy, want the %d full-text checks", busy, len(ftsTables))
	}
}

// Inside Apply, reads see what the event wrote before them: a session
// created by the event, its summary.
func TestApplyReadsItsOwnWrites(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	_, err := db.Apply(ctx, "", func(tx *DB) error {
		if _, err := tx.EnsureSession(ctx, memory.Session{ID: "p:a1", Project: "p", Agent: "claude-code", ParentID: "p"}); err != nil {
			return err
		}
		if _, err := tx.Session(ctx, "p:a1"); err != nil {
			return err
		}
		if _, err := tx.PutSummary(ctx, memory.Summary{SessionID: "p:a1", Request: "look"}); err != nil {
			return err
		}
		_, err := tx.SessionSummary(ctx, "p:a1")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
