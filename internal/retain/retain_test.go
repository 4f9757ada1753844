package retain

import (
	"context"
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
