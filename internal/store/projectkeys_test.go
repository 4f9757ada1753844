package store

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/memhq/mem/internal/memory"
)

func TestProjectKeysNewestFirst(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for i, s := range []struct{ id, project string }{{"a1", "p/a"}, {"b1", "p/b"}, {"a2", "p/a"}, {"c1", "p/c"}} {
		if _, _, err := db.StartSession(ctx, memory.Session{ID: s.id, Project: s.project,
			StartedAt: at.Add(time.Duration([]int{1, 5, 3, 2}[i]) * time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	keys, err := db.ProjectKeys(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"p/b", "p/a", "p/c"}; !slices.Equal(keys, want) {
		t.Errorf("ProjectKeys = %q, want %q", keys, want)
	}
}
