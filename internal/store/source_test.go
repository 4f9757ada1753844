package store

import (
	"context"
	"fmt"
	"slices"
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

// TestFilterKeepsOnlyTheGivenRows: whichever way Filter reads the table (a
// walk over dense ids, a lookup each, a project's summaries through its
// index), it returns the rows among ids that pass the filters, and no row
// between them that was not asked for.
func TestFilterKeepsOnlyTheGivenRows(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	for i, project := range []string{"p", "q", "p", "q", "p", "p"} {
		session := fmt.Sprintf("s%d", i+1)
		if _, _, err := db.StartSession(ctx, memory.Session{ID: session, Project: project, Agent: "test", StartedAt: at}); err != nil {
			t.Fatal(err)
		}
		// observation and summary ids are i+1
		if _, err := db.AddObservation(ctx, memory.Observation{SessionID: session, Type: memory.TypeNote,
			Title: "note " + session, CreatedAt: at.Add(time.Duration(i) * time.Hour)}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.PutSummary(ctx, memory.Summary{SessionID: session, Request: "work " + session,
			CreatedAt: at.Add(time.Duration(i) * time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		k    search.Kind
		q    search.Query
		ids  []int64
		want []int64
	}{
		{"dense ids, a gap", search.KindObservation, search.Query{Project: "p"}, []int64{1, 2, 3, 5}, []int64{1, 3, 5}},
		{"dense ids, all projects", search.KindObservation, search.Query{AllProjects: true}, []int64{2, 4, 5}, []int64{2, 4, 5}},
		{"sparse ids", search.KindObservation, search.Query{Project: "p"}, []int64{1, 6}, []int64{1, 6}},
		{"dense ids, an end date", search.KindObservation, search.Query{Project: "p", Until: at.Add(3 * time.Hour)}, []int64{1, 2, 3, 5}, []int64{1, 3}},
		{"summaries of a project", search.KindSummary, search.Query{Project: "p"}, []int64{2, 3, 4, 6}, []int64{3, 6}},
		{"summaries of every project", search.KindSummary, search.Query{AllProjects: true}, []int64{2, 3, 4, 6}, []int64{2, 3, 4, 6}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []int64
			err := db.Searching(ctx, tt.q, func(s *Snapshot) error {
				cands, err := s.Filter(ctx, tt.q, tt.k, tt.ids)
				for _, c := range cands {
					got = append(got, c.ID)
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("Filter(%v) = %v, want %v", tt.ids, got, tt.want)
			}
		})
	}
}

// TestNeighboursAreTheNearestOnEachSide: a row's neighbours are the n rows
// of its session just before it, nearest first, then the n just after it,
// nearest first; rows at the same time are ordered by id, and rows of other
// sessions or that the filters leave out are not among them.
func TestNeighboursAreTheNearestOnEachSide(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	for _, s := range []string{"s1", "s2"} {
		if _, _, err := db.StartSession(ctx, memory.Session{ID: s, Project: "p", Agent: "test", StartedAt: at}); err != nil {
			t.Fatal(err)
		}
	}
	// ids 1-8: s1 at hours 0, 1, 1, 2, (s2 at 2), 3, 3, 4; id 6 a bugfix
	for i, o := range []struct {
		session string
		hour    int
		typ     memory.Type
	}{{"s1", 0, memory.TypeNote}, {"s1", 1, memory.TypeNote}, {"s1", 1, memory.TypeNote}, {"s1", 2, memory.TypeNote},
		{"s2", 2, memory.TypeNote}, {"s1", 3, memory.TypeBugfix}, {"s1", 3, memory.TypeNote}, {"s1", 4, memory.TypeNote}} {
		if _, err := db.AddObservation(ctx, memory.Observation{SessionID: o.session, Type: o.typ,
			Title: fmt.Sprintf("note %d", i+1), CreatedAt: at.Add(time.Duration(o.hour) * time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		q    search.Query
		id   int64
		n    int
		want []int64
	}{
		{"two each side", search.Query{Project: "p"}, 4, 2, []int64{3, 2, 6, 7}},
		{"at the same time", search.Query{Project: "p"}, 2, 1, []int64{1, 3}},
		{"the first row", search.Query{Project: "p"}, 1, 2, []int64{2, 3}},
		{"the last row", search.Query{Project: "p"}, 8, 2, []int64{7, 6}},
		{"a type filter", search.Query{Project: "p", Types: []memory.Type{memory.TypeNote}}, 4, 2, []int64{3, 2, 7, 8}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []int64
			err := db.Searching(ctx, tt.q, func(s *Snapshot) error {
				obs, err := s.Hits(ctx, []memory.Candidate{{Kind: memory.KindObservation, ID: tt.id}})
				if err != nil || len(obs) != 1 {
					return fmt.Errorf("reading #%d: %v", tt.id, err)
				}
				c := memory.Candidate{Kind: memory.KindObservation, ID: tt.id, Session: obs[0].SessionID, Date: obs[0].Date}
				near, err := s.Neighbours(ctx, tt.q, c, tt.n)
				for _, r := range near {
					got = append(got, r.ID)
				}
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("Neighbours(#%d, %d) = %v, want %v", tt.id, tt.n, got, tt.want)
			}
		})
	}
}
