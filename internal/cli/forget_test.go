package cli

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/spool"
	"github.com/memhq/mem/internal/store"
)

// TestForgetHoldsTheSpoolLockAcrossDeleteAndPurge: between the database
// delete and the purge of the spool, no hook may take the drain lock (it
// would apply the forgotten session's spooled events again).
func TestForgetHoldsTheSpoolLockAcrossDeleteAndPurge(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "mem.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sp := spool.Beside(db.Path())
	if err := sp.Put(spool.NewID(time.Now()), []byte(`{"v":1,"event":{"session_id":"s-gone"}}`)); err != nil {
		t.Fatal(err)
	}
	for _, session := range []string{"s-gone", ""} {
		if _, err := db.EnsureSession(ctx, memory.Session{ID: "s-gone", Project: "test/project", Agent: "claude",
			StartedAt: time.Now(), LastActivityAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
		drained := false
		forgetDeleted = func(sp spool.Dir) {
			if release, ok := sp.TryLock(); ok { // what a hook does before it drains
				release()
				drained = true
			}
		}
		_, err := forgetWithSpool(ctx, db, session, "test/project")
		forgetDeleted = func(spool.Dir) {}
		if err != nil {
			t.Fatal(err)
		}
		if drained {
			t.Errorf("forget (session %q): a hook could take the drain lock between the delete and the purge", session)
		}
		if err := sp.Put(spool.NewID(time.Now()), []byte(`{"v":1,"project":"test/project"}`)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestForgetWithAFileInTheSpoolsPlace: a spool path that is not a folder
// holds no events; forget deletes at once instead of waiting for a lock
// it cannot take.
func TestForgetWithAFileInTheSpoolsPlace(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "mem.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := os.WriteFile(spool.Beside(db.Path()).Path(), []byte("not a folder"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := db.EnsureSession(ctx, memory.Session{ID: "s-gone", Project: "test/project", Agent: "claude",
		StartedAt: time.Now(), LastActivityAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	got, err := forgetWithSpool(ctx, db, "s-gone", "")
	if err != nil || got.Sessions != 1 {
		t.Fatalf("forget: %+v, %v", got, err)
	}
	if waited := time.Since(start); waited >= cliDrainFor {
		t.Errorf("forget waited %v for a lock it cannot take", waited)
	}
}
