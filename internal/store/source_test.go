package store

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/search"
)

// TestNewestInLooksAtABudgetOfRows: the walk below the common words' window
// reads at most budget rows of the word, so its cost does not grow with the
// table; an end date first moves the walk below every row newer than it.
func TestNewestInLooksAtABudgetOfRows(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	old := time.Date(2024, 5, 1, 9, 0, 0, 0, time.UTC)
	recent := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	add := func(session, project string, at time.Time, n int) {
		if _, _, err := db.StartSession(ctx, memory.Session{ID: session, Project: project, Agent: "test", StartedAt: at}); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if _, err := db.AddObservation(ctx, memory.Observation{SessionID: session, Type: memory.TypeNote,
				Title: fmt.Sprintf("deploy note %s %d", session, i), Narrative: "common words", CreatedAt: at.Add(time.Duration(i) * time.Second)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	add("old-p", "p", old, 5)     // ids 1-5: pass both filters
	add("new-q", "q", recent, 30) // ids 6-35: another project, recent
	add("new-p", "p", recent, 30) // ids 36-65: the project, recent
	tests := []struct {
		name   string
		q      search.Query
		budget int
		want   int
	}{
		{"project, within the budget", search.Query{Project: "p"}, 100, 5},
		{"project, past the budget", search.Query{Project: "p"}, 10, 0},
		{"end date, rows newer than it skipped", search.Query{Project: "p", Until: old.AddDate(0, 1, 0)}, 10, 5},
		{"end date, no project", search.Query{Until: old.AddDate(0, 1, 0)}, 10, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []search.Candidate
			err := db.read(ctx, func(tx *sqlx.Tx) error {
				sc, err := resolveScope(ctx, tx, tt.q)
				if err != nil {
					return err
				}
				src := newSnapshot(tx, sc)
				got, err = src.NewestIn(ctx, tt.q, search.KindObservation, "deploy", 36, 5, tt.budget)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != tt.want {
				t.Fatalf("%d rows, want %d: %v", len(got), tt.want, got)
			}
		})
	}
}
