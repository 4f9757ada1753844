package spool

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/store"
)

// sessions applies a record by starting the session its content names,
// counting how often each record is applied; "bad" is unreadable.
type sessions struct {
	applied map[string]int
	logged  []string
}

func (s *sessions) ApplySpooled(ctx context.Context, tx *store.DB, id string, data []byte) error {
	if string(data) == "bad" {
		return fmt.Errorf("%w: bad", ErrUnreadable)
	}
	s.applied[id]++
	_, err := tx.EnsureSession(ctx, memory.Session{ID: string(data), Project: "p", Agent: "claude-code", StartedAt: time.Now()})
	return err
}

func (s *sessions) LogSpooled(format string, args ...any) {
	s.logged = append(s.logged, fmt.Sprintf(format, args...))
}

// TestDrainAppliesEachRecordOnce: a drain applies every waiting record in
// one transaction and removes its file; one killed between its commit and
// the removal leaves the files, and the next drain only removes them; an
// unreadable record is set aside, said, and holds nothing up; a record
// applied by a drain is not applied again by its own process.
func TestDrainAppliesEachRecordOnce(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "mem.db")
	db, err := store.Open(ctx, path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	d := Beside(path)
	at := time.Now()
	var ids []string
	for i, body := range []string{"s1", "bad", "s2"} {
		id := NewID(at.Add(time.Duration(i) * time.Millisecond))
		if err := d.Put(id, []byte(body)); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	// What a drain killed after its commit leaves: the files, kept aside
	// here to be put back.
	kept := map[string][]byte{}
	for _, id := range []string{ids[0], ids[2]} {
		b, err := os.ReadFile(filepath.Join(d.Path(), id+ext))
		if err != nil {
			t.Fatal(err)
		}
		kept[id] = b
	}
	a := &sessions{applied: map[string]int{}}
	left, err := d.Drain(ctx, db, time.Now().Add(time.Minute), a)
	if err != nil || left != 0 {
		t.Fatalf("Drain: %d left, %v", left, err)
	}
	if waiting, failed, _ := d.Len(); waiting != 0 || failed != 1 {
		t.Errorf("after the drain: %d waiting, %d set aside; want 0, 1", waiting, failed)
	}
	if len(a.logged) != 1 {
		t.Errorf("logged %q, want the record set aside", a.logged)
	}
	for id, b := range kept {
		if err := d.Put(id, b); err != nil {
			t.Fatal(err)
		}
	}
	if left, err := d.Drain(ctx, db, time.Now().Add(time.Minute), a); err != nil || left != 0 {
		t.Fatalf("second Drain: %d left, %v", left, err)
	}
	if waiting, _, _ := d.Len(); waiting != 0 {
		t.Errorf("after the second drain: %d waiting, want 0", waiting)
	}
	ran := false
	if err := d.Apply(ctx, db, ids[0], at, func(*store.DB) error { ran = true; return nil }); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{ids[0], ids[2]} {
		if a.applied[id] != 1 {
			t.Errorf("record %s applied %d times, want 1", id, a.applied[id])
		}
	}
	if ran {
		t.Error("a record drained was applied again under its id")
	}
	list, err := db.ListSessions(ctx, store.SessionFilter{Limit: 10})
	if err != nil || len(list) != 2 {
		t.Errorf("sessions %v, %v; want s1 and s2", list, err)
	}
}
