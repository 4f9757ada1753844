package retain

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/store"
)

func TestRun(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	old, young := now.Add(-100*24*time.Hour), now.Add(-10*24*time.Hour)
	policy := func(t memory.Type) time.Duration {
		if t == memory.TypeChange || t == memory.TypeNote {
			return 90 * 24 * time.Hour
		}
		return 0
	}
	for _, dry := range []bool{true, false} {
		db, err := store.Open(ctx, filepath.Join(t.TempDir(), "mem.db"), store.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		for _, s := range []string{"s1", "s2", "s3"} {
			if _, err := db.EnsureSession(ctx, memory.Session{ID: s, Project: "p", StartedAt: old}); err != nil {
				t.Fatal(err)
			}
		}
		add := func(s string, typ memory.Type, title string, at time.Time, files ...string) int64 {
			a, err := db.AddObservation(ctx, memory.Observation{SessionID: s, Type: typ, Title: title, CreatedAt: at, FilesModified: files})
			if err != nil {
				t.Fatal(err)
			}
			return a.ID
		}
		expired := add("s1", memory.TypeChange, "Edited a.go: x := 1 → x := 2", old, "a.go")
		quoted := add("s1", memory.TypeNote, "The worker restarts nightly", old)
		decision := add("s1", memory.TypeDecision, "Refunds retry 5 times", old)
		fresh := add("s1", memory.TypeNote, "A young note", young)
		retired := add("s1", memory.TypeChange, "Edited b.go: y := 1 → y := 2", old, "b.go")
		correction := add("s1", memory.TypeChange, "Edited b.go: y := 2 → y := 3", young, "b.go")
		if err := db.Supersede(ctx, retired, correction); err != nil {
			t.Fatal(err)
		}
		dup1 := add("s1", memory.TypeProblem, "go vet ./... failed: unreachable code", young)
		dup2 := add("s2", memory.TypeProblem, "go vet ./... failed: unreachable code", young.Add(time.Hour))
		dup3 := add("s3", memory.TypeProblem, "go vet ./... failed: unreachable code", young.Add(2*time.Hour))
		if _, err := db.PutSummary(ctx, memory.Summary{SessionID: "s1", Learned: "The worker restarts nightly.", Generator: "extractive", CreatedAt: old}); err != nil {
			t.Fatal(err)
		}
		rep, err := Run(ctx, db, policy, now, dry)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Forgotten[memory.TypeChange] != 1 || rep.Quoted != 1 || rep.Groups != 1 || rep.Folded != 2 {
			t.Errorf("dry %v: report %+v, want 1 change forgotten, 1 quoted kept, 2 folded into 1", dry, rep)
		}
		want := []int64{expired, dup1, dup2}
		if len(rep.IDs) != len(want) || rep.IDs[0] != want[0] || rep.IDs[1] != want[1] || rep.IDs[2] != want[2] {
			t.Errorf("dry %v: ids %v, want %v", dry, rep.IDs, want)
		}
		for _, id := range []int64{quoted, decision, fresh, retired, correction, dup3} {
			if _, err := db.Observations(ctx, []int64{id}); err != nil {
				t.Errorf("dry %v: #%d should stay: %v", dry, id, err)
			}
		}
		for _, id := range want {
			_, err := db.Observations(ctx, []int64{id})
			if gone := err != nil; gone == dry {
				t.Errorf("dry %v: #%d gone = %v", dry, id, gone)
			}
		}
		o, err := db.Observations(ctx, []int64{dup3})
		if err != nil {
			t.Fatal(err)
		}
		if wantMerged := map[bool]int{true: 0, false: 2}[dry]; o[0].Merged != wantMerged {
			t.Errorf("dry %v: #%d merged %d, want %d", dry, dup3, o[0].Merged, wantMerged)
		}
	}
}

// What retention lets go is forgotten as `mem forget` forgets: a tombstone
// keeps a team pull from bringing it back, and the WAL holds none of it.
func TestRetainedAwayStaysAway(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	old := now.Add(-100 * 24 * time.Hour)
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "mem.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Share(ctx, "p", old); err != nil {
		t.Fatal(err)
	}
	if _, err := db.BeginSync(ctx, "c1", "p"); err != nil {
		t.Fatal(err)
	}
	sess := memory.Session{ID: "s1", Project: "p", StartedAt: old, LastActivityAt: old, Status: memory.StatusActive}
	obs := memory.Observation{UUID: "o1", SessionID: "s1", Project: "p", Type: memory.TypeNote,
		Title: "the quokka secret note", CreatedAt: old}
	pulled := []store.Incoming{
		{Seq: 1, Key: memory.KeySession + "s1", Origin: "other", Record: memory.Record{Kind: memory.KindSession, Session: &sess}},
		{Seq: 2, Key: memory.KeyObservation + "o1", Origin: "other", Record: memory.Record{Kind: memory.KindObservation, Observation: &obs}},
	}
	count := func() int {
		var n int
		if err := db.SQL().Get(&n, `SELECT count(*) FROM observations WHERE uuid = 'o1'`); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if _, err := db.ApplyPulled(ctx, "c1", "p", pulled, 2, old); err != nil || count() != 1 {
		t.Fatalf("first pull: %v, %d rows", err, count())
	}
	policy := func(memory.Type) time.Duration { return 90 * 24 * time.Hour }
	rep, err := Run(ctx, db, policy, now, false)
	if err != nil || rep.Total() != 1 || count() != 0 {
		t.Fatalf("retention: %+v, %v; %d rows left", rep, err, count())
	}
	var tomb int
	if err := db.SQL().Get(&tomb, `SELECT count(*) FROM sync_tombstones WHERE key = 'observation:o1'`); err != nil || tomb != 1 {
		t.Errorf("tombstones of the retained record: %d (%v), want 1", tomb, err)
	}
	if _, err := db.ApplyPulled(ctx, "c1", "p", pulled, 4, now); err != nil || count() != 0 {
		t.Errorf("a later pull brought the retained record back: %v, %d rows", err, count())
	}
	wal, err := os.ReadFile(db.Path() + "-wal")
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if bytes.Contains(wal, []byte("quokka secret")) {
		t.Errorf("the WAL still holds the retained record's text (%d bytes)", len(wal))
	}
}
