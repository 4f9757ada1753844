package spool

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestForgetHoldsTheLockAcrossDeleteAndPurge: from the database delete to
// the end of the purge of the spool, no other process may take the drain
// lock (it would apply the forgotten session's spooled events again).
func TestForgetHoldsTheLockAcrossDeleteAndPurge(t *testing.T) {
	d := Beside(filepath.Join(t.TempDir(), "mem.db"))
	gone := []byte(`"s-gone"`)
	if err := d.Put(NewID(time.Now()), []byte(`{"v":1,"event":{"session_id":"s-gone"}}`)); err != nil {
		t.Fatal(err)
	}
	if err := d.Put(NewID(time.Now()), []byte(`{"v":1,"event":{"session_id":"s-kept"}}`)); err != nil {
		t.Fatal(err)
	}
	drained := ""
	tryLock := func(when string) { // what a hook does before it drains
		if release, ok := d.TryLock(); ok {
			release()
			drained = when
		}
	}
	deleted := false
	n, err := d.Forget(time.Now().Add(time.Second), func() error {
		tryLock("during the delete")
		deleted = true
		return nil
	}, func(data []byte) bool {
		tryLock("after the delete, during the purge")
		return bytes.Contains(data, gone)
	})
	if err != nil || n != 1 || !deleted {
		t.Fatalf("Forget: %d records, deleted %v, %v; want 1, true", n, deleted, err)
	}
	if drained != "" {
		t.Errorf("a hook could take the drain lock %s", drained)
	}
	if waiting, _, _ := d.Len(); waiting != 1 {
		t.Errorf("%d records left, want the other session's 1", waiting)
	}
	// Held by another process for the whole wait: nothing is deleted.
	release, ok := d.TryLock()
	if !ok {
		t.Fatal("lock refused")
	}
	defer release()
	_, err = d.Forget(time.Now().Add(50*time.Millisecond), func() error {
		t.Error("deleted without the drain lock")
		return nil
	}, func([]byte) bool { return true })
	if err == nil {
		t.Error("Forget without the drain lock: no error")
	}
}

// TestForgetWithAFileInTheSpoolsPlace: a spool path that is not a folder
// holds no events; forget deletes at once instead of waiting for a lock
// it cannot take.
func TestForgetWithAFileInTheSpoolsPlace(t *testing.T) {
	d := Beside(filepath.Join(t.TempDir(), "mem.db"))
	if err := os.WriteFile(d.Path(), []byte("not a folder"), 0o600); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	wait := 5 * time.Second
	deleted := errors.New("deleted")
	n, err := d.Forget(start.Add(wait), func() error { return deleted }, func([]byte) bool { return true })
	if n != 0 || !errors.Is(err, deleted) {
		t.Fatalf("forget: %d, %v; want the delete's own result", n, err)
	}
	if waited := time.Since(start); waited >= wait {
		t.Errorf("forget waited %v for a lock it cannot take", waited)
	}
}
