package remember

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/memhq/mem/internal/cite"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/search"
	"github.com/memhq/mem/internal/store"
)

// Search checks and marks its hits in one snapshot: a changed file makes
// its observation stale, a correction retires the old one, both rank below
// the one that holds; what the check learnt comes back to keep, and once
// kept the next search learns nothing.
func TestSearchChecksAndMarksHits(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	write := func(name, text string, at time.Time) {
		p := filepath.Join(root, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-time.Hour)
	write("a.go", "package a\n", old)
	write("b.go", "package b\n", old)
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "mem.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.EnsureSession(ctx, memory.Session{ID: "s1", Project: "p", StartedAt: old}); err != nil {
		t.Fatal(err)
	}
	add := func(title string, supersedes int64, files ...string) int64 {
		o := memory.Observation{SessionID: "s1", Type: memory.TypeDecision, Title: title, FilesModified: files,
			Supersedes: supersedes, CreatedAt: old}
		o.Citations = cite.Take(root, cite.Files(&o, ""))
		a, err := db.AddObservation(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		return a.ID
	}
	stale := add("wombat cache in a.go", 0, "a.go")
	touched := add("wombat retry in b.go", 0, "b.go")
	retired := add("wombat pool size four", 0)
	holds := add("wombat pool size eight", retired)
	write("a.go", "package a // changed\n", time.Now())
	write("b.go", "package b\n", time.Now()) // touched: same content

	q := search.Query{Text: "wombat", Project: "p", Kinds: []search.Kind{search.KindObservation}, Limit: 10}
	hits, learnt, err := Search(ctx, db, q)
	if err != nil {
		t.Fatal(err)
	}
	notes := map[int64]string{}
	rank := map[int64]int{}
	for i, h := range hits {
		notes[h.ID], rank[h.ID] = h.Note, i
	}
	if len(hits) != 4 || notes[stale] != "stale: a.go changed" || notes[retired] == "" || notes[touched] != "" || notes[holds] != "" {
		t.Fatalf("hits %+v: notes %v", hits, notes)
	}
	if rank[stale] < rank[holds] || rank[stale] < rank[touched] || rank[retired] < rank[holds] {
		t.Errorf("stale or retired ranked above what holds: %v", rank)
	}
	if len(learnt) != 2 {
		t.Fatalf("learnt %+v, want the moved fingerprints of a.go and b.go", learnt)
	}
	if err := Keep(ctx, db, learnt); err != nil {
		t.Fatal(err)
	}
	again, learnt, err := Search(ctx, db, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(learnt) != 0 || len(again) != 4 {
		t.Errorf("after keeping, a search learnt %+v (%d hits)", learnt, len(again))
	}
}
