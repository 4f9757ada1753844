package store

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/memhq/mem/internal/memory"
)

func TestMarksOncePerSession(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	at := time.UnixMilli(1_800_000_000_000)
	fresh, err := db.MarkOnce(ctx, "s1", "directory-agents", []string{"a", "b"}, at)
	if err != nil || strings.Join(fresh, ",") != "a,b" {
		t.Fatalf("first mark: %v %v", fresh, err)
	}
	fresh, err = db.MarkOnce(ctx, "s1", "directory-agents", []string{"b", "c"}, at)
	if err != nil || strings.Join(fresh, ",") != "c" {
		t.Fatalf("second mark: %v %v, want c", fresh, err)
	}
	// Another session and another kind are separate.
	if fresh, _ := db.MarkOnce(ctx, "s2", "directory-agents", []string{"a"}, at); len(fresh) != 1 {
		t.Fatalf("s2: %v", fresh)
	}
	if fresh, _ := db.MarkOnce(ctx, "s1", "rules", []string{"a"}, at); len(fresh) != 1 {
		t.Fatalf("other kind: %v", fresh)
	}
	m, err := db.Marked(ctx, "s1", "directory-agents", []string{"a", "z"})
	if err != nil || !m["a"] || m["z"] {
		t.Fatalf("marked: %v %v", m, err)
	}
}

func TestRegisterPendingOnceRaisesPriority(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	e := memory.PendingEntry{SessionID: "s", Source: "file-activity", EntryID: "#1", Content: "x",
		Priority: memory.PriorityNormal, CreatedAt: time.UnixMilli(1_800_000_000_000)}
	if ok, err := db.RegisterPendingOnce(ctx, e, "observation", "1"); !ok || err != nil {
		t.Fatalf("first: %v %v", ok, err)
	}
	e.Priority = memory.PriorityHigh
	if ok, err := db.RegisterPendingOnce(ctx, e, "observation", "1"); ok || err != nil {
		t.Fatalf("second: %v %v, want not registered again", ok, err)
	}
	got, _ := db.PendingEntries(ctx, "s")
	if len(got) != 1 || got[0].Priority != memory.PriorityHigh {
		t.Fatalf("pending: %+v, want one entry raised to high", got)
	}
	// Once consumed, the mark keeps it from coming back.
	if _, err := db.ConsumePending(ctx, "s", nil); err != nil {
		t.Fatal(err)
	}
	if ok, _ := db.RegisterPendingOnce(ctx, e, "observation", "1"); ok {
		t.Fatal("delivered observation registered again")
	}
	if got, _ := db.PendingEntries(ctx, "s"); len(got) != 0 {
		t.Fatalf("pending after consume: %+v", got)
	}
}

func TestRecentMarks(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	at := time.UnixMilli(1_800_000_000_000)
	if err := db.TouchMarks(ctx, "s", "trigger", []string{"A", "B"}, at); err != nil {
		t.Fatal(err)
	}
	if err := db.TouchMarks(ctx, "s", "trigger", []string{"C", "A"}, at.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	got, err := db.RecentMarks(ctx, "s", "trigger", 2)
	if err != nil || strings.Join(got, ",") != "A,C" {
		t.Fatalf("recent: %v %v, want A,C", got, err)
	}
}

func TestEndSessionClearsPending(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	startTest(t, db, "s1", "p")
	e := memory.PendingEntry{SessionID: "s1", Source: "custom", EntryID: "x", Content: "c", Persistent: true}
	if err := db.RegisterPending(ctx, e); err != nil {
		t.Fatal(err)
	}
	if _, err := db.EndSession(ctx, "s1", time.Time{}); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.PendingEntries(ctx, "s1"); len(got) != 0 {
		t.Fatalf("pending after end: %+v", got)
	}
}

// In the caller's write transaction, what a turn consumes goes in one
// statement: what pick left and the persistent entries stay. In a read
// transaction, nothing waiting is no error.
func TestConsumePendingInTransactions(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	at := time.UnixMilli(1_800_000_000_000)
	for i, id := range []string{"#1", "#2", "#3"} {
		e := memory.PendingEntry{SessionID: "s", Source: "file-activity", EntryID: id, Content: id,
			Priority: memory.PriorityNormal, Persistent: id == "#2", CreatedAt: at.Add(time.Duration(i) * time.Millisecond)}
		if err := db.RegisterPending(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	var got []memory.PendingEntry
	err := db.Write(ctx, func(tx *DB) error {
		var err error
		got, err = tx.ConsumePending(ctx, "s", func(es []memory.PendingEntry) []memory.PendingEntry { return es[:2] })
		return err
	})
	if err != nil || len(got) != 2 || got[0].EntryID != "#1" || got[1].EntryID != "#2" {
		t.Fatalf("consumed %v, %v; want #1 and #2", got, err)
	}
	left, err := db.PendingEntries(ctx, "s")
	if err != nil || len(left) != 2 || left[0].EntryID != "#2" || left[1].EntryID != "#3" {
		t.Fatalf("left %v, %v; want the persistent #2 and the unpicked #3", left, err)
	}
	err = db.Read(ctx, func(tx *DB) error {
		got, err := tx.ConsumePending(ctx, "nobody", nil)
		if len(got) != 0 {
			t.Errorf("consumed %v for a session with nothing waiting", got)
		}
		return err
	})
	if err != nil {
		t.Fatalf("a read transaction with nothing waiting: %v", err)
	}
}
