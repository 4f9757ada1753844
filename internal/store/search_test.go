package store

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/search"
)

var t0 = time.Date(2026, 1, 10, 9, 0, 0, 0, time.UTC)

// seedSearch stores a small project history and returns the ids by a short name.
func seedSearch(t testing.TB, db *DB) map[string]int64 {
	t.Helper()
	ctx := context.Background()
	for _, s := range []struct{ id, project string }{{"s1", "p1"}, {"s2", "p1"}, {"s3", "p2"}} {
		if _, _, err := db.StartSession(ctx, memory.Session{ID: s.id, Project: s.project, Agent: "test", StartedAt: t0}); err != nil {
			t.Fatal(err)
		}
	}
	ids := map[string]int64{}
	add := func(name, session string, typ memory.Type, at time.Time, title, narrative string, files ...string) {
		a, err := db.AddObservation(ctx, memory.Observation{SessionID: session, Type: typ, Title: title,
			Narrative: narrative, FilesModified: files, CreatedAt: at})
		if err != nil {
			t.Fatal(err)
		}
		ids[name] = a.ID
	}
	add("dsn", "s1", memory.TypeDecision, t0, "Use parseDSN to read the store config", "Pragmas go in the DSN.", "internal/store/db.go")
	add("busy", "s1", memory.TypeProblem, t0.Add(time.Minute), "Hooks failed with SQLITE_BUSY", "Deferred transactions upgraded to writes under load.")
	add("retry", "s1", memory.TypeBugfix, t0.Add(2*time.Minute), "Immediate transactions fix lock errors", "BEGIN IMMEDIATE waits on busy_timeout instead of failing.")
	add("reindex", "s2", memory.TypeChange, t0.Add(48*time.Hour), "Re-index FTS after import", "The importer calls rebuild on observations_fts.", "internal/store/interchange.go")
	add("narr", "s2", memory.TypeNote, t0.Add(49*time.Hour), "Notes on the release", "Mentions backoff only in the narrative.")
	add("title", "s2", memory.TypeNote, t0.Add(50*time.Hour), "Exponential backoff for retries", "Delays double each attempt.")
	add("other", "s3", memory.TypeDecision, t0, "Backoff in another project", "Not in p1.")
	if _, err := db.PutSummary(ctx, memory.Summary{SessionID: "s1", Request: "Fix lock errors in hooks",
		Text: "Hooks hit SQLITE_BUSY; immediate transactions fixed it.", CreatedAt: t0.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.AddPrompt(ctx, "s2", "please re-index the search after import", t0.Add(47*time.Hour)); err != nil {
		t.Fatal(err)
	}
	return ids
}

func hitRefs(hits []search.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.Ref
	}
	return out
}

func TestSearchFindsIdentifiersAndPaths(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	ids := seedSearch(t, db)
	tests := []struct {
		query string
		want  string // the observation that must come first
	}{
		{"parseDSN", "dsn"},
		{"parse dsn", "dsn"},
		{"internal/store/db.go", "dsn"},
		{"db.go", "dsn"},
		{"SQLITE_BUSY", "busy"},
		{"sqlite busy hooks", "busy"},
		{"re-index", "reindex"},
		{"reindexing FTS", "reindex"},           // stemming: reindexing ~ index
		{"backoff", "title"},                    // title weighs more than narrative
		{"backoff zyzzyva-not-a-word", "title"}, // an absent word does not empty the result
		{"\"lock errors", "retry"},
		{"NOT lock AND errors", "retry"},
	}
	for _, tt := range tests {
		hits, err := search.Search(ctx, db, search.Query{Text: tt.query, Project: "p1", Kinds: []search.Kind{search.KindObservation}})
		if err != nil {
			t.Fatalf("Search(%q): %v", tt.query, err)
		}
		if len(hits) == 0 || hits[0].ID != ids[tt.want] {
			t.Errorf("Search(%q) = %v, want #%d first", tt.query, hitRefs(hits), ids[tt.want])
		}
		for _, h := range hits {
			if h.Project != "p1" {
				t.Errorf("Search(%q) returned %s of project %s", tt.query, h.Ref, h.Project)
			}
		}
	}
}

func TestSearchFilters(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	ids := seedSearch(t, db)
	ref := func(name string) string { return fmt.Sprintf("#%d", ids[name]) }
	tests := []struct {
		name string
		q    search.Query
		want []string
	}{
		{"types", search.Query{Text: "transactions busy", Project: "p1", Types: []memory.Type{memory.TypeBugfix}}, []string{ref("retry")}},
		{"session", search.Query{Text: "backoff", SessionID: "s2"}, []string{ref("title"), ref("narr")}},
		{"file by path end", search.Query{File: "store/interchange.go", Project: "p1"}, []string{ref("reindex")}},
		{"since", search.Query{Text: "backoff", Project: "p1", Since: t0.Add(49*time.Hour + time.Minute)}, []string{ref("title")}},
		{"until", search.Query{Text: "transactions", Project: "p1", Until: t0.Add(2 * time.Minute), Kinds: []search.Kind{search.KindObservation}}, []string{ref("busy")}},
		{"all projects", search.Query{Text: "backoff another", AllProjects: true, Limit: 1}, []string{ref("other")}},
		{"offset", search.Query{Text: "backoff", Project: "p1", Offset: 1, Limit: 1}, []string{ref("narr")}},
		{"summaries", search.Query{Text: "lock errors hooks", Project: "p1", Kinds: []search.Kind{search.KindSummary}}, []string{"S1"}},
		{"prompts", search.Query{Text: "re-index", Project: "p1", Kinds: []search.Kind{search.KindPrompt}}, []string{"P1"}},
		{"no text lists newest", search.Query{Project: "p1", Kinds: []search.Kind{search.KindObservation}, Limit: 2}, []string{ref("title"), ref("narr")}},
		{"emoji only", search.Query{Text: "🙂", Project: "p1"}, []string{}},
	}
	for _, tt := range tests {
		hits, err := search.Search(ctx, db, tt.q)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		// Rows next to a match or in a matching session may follow the
		// matches; the matches come first, and every row passes the filters.
		got := hitRefs(hits)
		if len(got) < len(tt.want) || strings.Join(got[:len(tt.want)], " ") != strings.Join(tt.want, " ") ||
			(len(tt.want) == 0 && len(got) > 0) {
			t.Errorf("%s: got %v, want %v first", tt.name, got, tt.want)
		}
		for _, h := range hits {
			o := h.Observation
			switch {
			case len(tt.q.Types) > 0 && (o == nil || o.Type != tt.q.Types[0]),
				tt.q.SessionID != "" && h.SessionID != tt.q.SessionID,
				!tt.q.AllProjects && tt.q.Project != "" && h.Project != tt.q.Project,
				!tt.q.Since.IsZero() && h.Date.Before(tt.q.Since),
				!tt.q.Until.IsZero() && !h.Date.Before(tt.q.Until):
				t.Errorf("%s: %s does not pass the filters", tt.name, h.Ref)
			}
		}
	}
	if _, err := search.Search(ctx, db, search.Query{Text: "x"}); !memory.IsInvalid(err) {
		t.Errorf("search without a scope: %v, want a validation error", err)
	}
}

func TestSearchMixesKinds(t *testing.T) {
	db := openTest(t)
	seedSearch(t, db)
	hits, err := search.Search(context.Background(), db, search.Query{Text: "SQLITE_BUSY hooks", Project: "p1"})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[search.Kind]bool{}
	for _, h := range hits {
		kinds[h.Kind] = true
		if (h.Observation == nil) == (h.Summary == nil) == (h.Prompt == nil) {
			t.Errorf("%s: want exactly one record", h.Ref)
		}
	}
	if !kinds[search.KindObservation] || !kinds[search.KindSummary] {
		t.Errorf("kinds %v, want observations and summaries", kinds)
	}
}

func TestTimeline(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	ids := seedSearch(t, db)
	hits, err := db.Timeline(ctx, search.TimelineQuery{Around: ids["narr"], Before: 1, After: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{fmt.Sprintf("#%d", ids["reindex"]), fmt.Sprintf("#%d", ids["narr"]), fmt.Sprintf("#%d", ids["title"])}
	if got := hitRefs(hits); strings.Join(got, " ") != strings.Join(want, " ") || !hits[1].Anchor {
		t.Errorf("timeline = %v (anchor %v), want %v with the middle as anchor", got, hits[1].Anchor, want)
	}
	all, err := db.Timeline(ctx, search.TimelineQuery{SessionID: "s2"})
	if err != nil {
		t.Fatal(err)
	}
	if got := hitRefs(all); len(got) != 4 || got[0] != "P1" {
		t.Errorf("session timeline = %v, want the prompt then 3 observations", got)
	}
	if _, err := db.Timeline(ctx, search.TimelineQuery{Around: 999}); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("timeline around a missing id: %v", err)
	}
}

// FuzzSearch runs arbitrary text through the whole search against a real
// database: no input may give an error, and a known word next to any input
// still finds its row.
func FuzzSearch(f *testing.F) {
	for _, in := range []string{"", "\"", "NOT", "a AND", "NEAR(x y)", "internal/store/db.go", "SQLITE_BUSY",
		"parseDSN", "re-index", "'unbalanced", "🙂", "col:x", "x*", "^x", "(((", strings.Repeat("panic: x\n", 500)} {
		f.Add(in)
	}
	db, err := Open(context.Background(), filepath.Join(f.TempDir(), "mem.db"), Options{})
	if err != nil {
		f.Fatal(err)
	}
	defer db.Close()
	seedSearch(f, db)
	f.Fuzz(func(t *testing.T, in string) {
		hits, err := search.Search(context.Background(), db, search.Query{Text: in + " backoff", Project: "p1", Limit: 5})
		if err != nil {
			t.Fatalf("Search(%q): %v", in, err)
		}
		if len(hits) == 0 {
			t.Fatalf("Search(%q + backoff) found nothing", in)
		}
		if _, err := search.Search(context.Background(), db, search.Query{Text: in, Project: "p1"}); err != nil {
			t.Fatalf("Search(%q): %v", in, err)
		}
	})
}

// TestPastedLogFindsItsRareWords: a pasted log of 10 KB is cut to its most
// distinctive words before it reaches FTS5, and still finds the rows that
// share its rare words rather than those that share its boilerplate.
func TestPastedLogFindsItsRareWords(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	if _, _, err := db.StartSession(ctx, memory.Session{ID: "s", Project: "p", Agent: "test", StartedAt: t0}); err != nil {
		t.Fatal(err)
	}
	var rare int64
	for i := 0; i < 60; i++ {
		o := memory.Observation{SessionID: "s", Type: memory.TypeNote, CreatedAt: t0.Add(time.Duration(i) * time.Minute),
			Title:     fmt.Sprintf("Worker request handled with status 200 on 2026-03-%02d", i%28+1),
			Narrative: "The worker logs INFO for every request it handled, with the status and the time it took."}
		if i == 30 {
			o.Title, o.Narrative = "PriceThumbnail fails with a checksum mismatch", "ledgerCompaction rewrote the thumbnails."
		}
		a, err := db.AddObservation(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		if i == 30 {
			rare = a.ID
		}
	}
	var log strings.Builder
	for i := 0; log.Len() < 10<<10; i++ {
		fmt.Fprintf(&log, "2026-03-%02dT12:%02d:00Z INFO worker request handled status=200 took=%dms id=%d\n", i%28+1, i%60, i*7, 1000+i)
		if i == 40 {
			log.WriteString("2026-03-13T12:40:00Z ERROR worker PriceThumbnail failed: checksum mismatch in ledgerCompaction\n")
		}
	}
	hits, err := search.Search(ctx, db, search.Query{Text: log.String(), Project: "p", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].ID != rare {
		t.Errorf("hits %v; want #%d first", hitRefs(hits), rare)
	}
}

// TestSearchFiltersReachPastCommonWords: a word in more rows than the
// ranking's window is read from its newest rows only, and those must be the
// newest rows that pass the filters. Here a crowd of newer rows with the
// same word fails the filter; the three older rows that pass must be found.
func TestSearchFiltersReachPastCommonWords(t *testing.T) {
	crowd := search.DefaultRanking().Window + 100
	old := time.Date(2024, 5, 1, 9, 0, 0, 0, time.UTC)
	recent := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	// rows is a batch of observations of one session; batches are
	// imported in order, so a later batch has the higher (newer) ids.
	type rows struct {
		session, project string
		typ              memory.Type
		at               time.Time
		file             string
		n                int
	}
	target := func(at time.Time) rows {
		return rows{"target", "p", memory.TypeDecision, at, "internal/deploy/old.go", 3}
	}
	others := func(project string, at time.Time) rows {
		return rows{"crowd", project, memory.TypeNote, at, "internal/deploy/new.go", crowd}
	}
	tests := []struct {
		name    string
		batches []rows // the first is the target
		q       search.Query
	}{
		{"until", []rows{target(old), others("p", recent)}, search.Query{Project: "p", Until: old.AddDate(0, 1, 0)}},
		{"since, older rows imported later", []rows{target(recent), others("p", old)}, search.Query{Project: "p", Since: recent.AddDate(0, -1, 0)}},
		{"project", []rows{target(old), others("q", old)}, search.Query{Project: "p"}},
		{"type", []rows{target(old), others("p", old)}, search.Query{Project: "p", Types: []memory.Type{memory.TypeDecision}}},
		{"session", []rows{target(old), others("p", old)}, search.Query{SessionID: "target"}},
		{"file", []rows{target(old), others("p", old)}, search.Query{Project: "p", File: "deploy/old.go"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			db := openTest(t)
			var recs []memory.Record
			for _, b := range tt.batches {
				recs = append(recs, memory.Record{Kind: memory.KindSession, Session: &memory.Session{ID: b.session,
					Project: b.project, Agent: "test", StartedAt: b.at, LastActivityAt: b.at}})
			}
			for _, b := range tt.batches {
				for i := range b.n {
					recs = append(recs, memory.Record{Kind: memory.KindObservation, Observation: &memory.Observation{
						SessionID: b.session, Type: b.typ, Title: fmt.Sprintf("Deploy step %d of %s", i, b.session),
						FilesModified: []string{b.file}, CreatedAt: b.at.Add(time.Duration(i) * time.Minute)}})
				}
			}
			if _, err := db.Import(ctx, recs); err != nil {
				t.Fatal(err)
			}
			var want []string
			for i := range tt.batches[0].n {
				want = append(want, fmt.Sprintf("#%d", i+1))
			}
			q := tt.q
			q.Text, q.Kinds = "deploy", []search.Kind{search.KindObservation}
			hits, err := search.Search(ctx, db, q)
			if err != nil {
				t.Fatal(err)
			}
			got := hitRefs(hits)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("hits %v, want %v", got, want)
			}
		})
	}
}
