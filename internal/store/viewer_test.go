package store

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/memhq/mem/internal/memory"
)

func TestUpdateObservationKeepsIndexInStep(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	startTest(t, db, "s1", "p1")
	a, err := db.AddObservation(ctx, memory.Observation{SessionID: "s1", Type: memory.TypeNote, Title: "walrus parser",
		Narrative: "the walrus parser drops tabs", FilesModified: []string{"parse.go"}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := db.AddObservation(ctx, memory.Observation{SessionID: "s1", Type: memory.TypeNote, Title: "other"})
	if err != nil {
		t.Fatal(err)
	}
	obs, _ := db.Observations(ctx, []int64{a.ID})
	o := obs[0]
	o.Title, o.Narrative, o.Type, o.Facts = "narwhal lexer", "tabs are kept", memory.TypeDecision, []string{"fact one"}
	got, err := db.UpdateObservation(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if got.ContentHash == obs[0].ContentHash {
		t.Error("the content hash was not recomputed")
	}
	if n := ftsCount(t, db, "walrus"); n != 0 {
		t.Errorf("old title still indexed: %d hits", n)
	}
	if n := ftsCount(t, db, "narwhal"); n != 1 {
		t.Errorf("new title indexed %d times, want 1", n)
	}
	again, _ := db.Observations(ctx, []int64{a.ID})
	if r := again[0]; r.Title != "narwhal lexer" || r.Type != memory.TypeDecision || len(r.Facts) != 1 ||
		len(r.FilesModified) != 1 || !r.CreatedAt.Equal(obs[0].CreatedAt) {
		t.Errorf("stored %+v", r)
	}

	cases := []struct {
		name string
		edit func(o *memory.Observation)
		want func(error) bool
	}{
		{"empty title", func(o *memory.Observation) { o.Title = " " }, memory.IsInvalid},
		{"bad type", func(o *memory.Observation) { o.Type = "nonsense" }, memory.IsInvalid},
		{"same as another", func(o *memory.Observation) {
			*o = memory.Observation{ID: a.ID, SessionID: "s1", Type: memory.TypeNote, Title: "other"}
		}, memory.IsInvalid},
		{"missing", func(o *memory.Observation) { o.ID = b.ID + 100 }, func(err error) bool { return errors.Is(err, memory.ErrNotFound) }},
	}
	for _, c := range cases {
		e := again[0]
		c.edit(&e)
		if _, err := db.UpdateObservation(ctx, e); !c.want(err) {
			t.Errorf("%s: got %v", c.name, err)
		}
	}
	if n := ftsCount(t, db, "narwhal"); n != 1 {
		t.Errorf("a refused edit changed the index: %d", n)
	}
}

func TestProjectsAndDays(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	startTest(t, db, "s1", "p1")
	startTest(t, db, "s2", "p1")
	startTest(t, db, "s3", "p2")
	day := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	add := func(sess string, typ memory.Type, title string, at time.Time) {
		if _, err := db.AddObservation(ctx, memory.Observation{SessionID: sess, Type: typ, Title: title, CreatedAt: at}); err != nil {
			t.Fatal(err)
		}
	}
	add("s1", memory.TypeNote, "a", day)
	add("s2", memory.TypeNote, "b", day.Add(time.Hour))
	add("s2", memory.TypeDecision, "c", day.Add(24*time.Hour))
	add("s3", memory.TypeNote, "d", day)
	add("s3", memory.TypeNote, "old", day.AddDate(0, -6, 0))

	recent, err := db.RecentSessions(ctx, 2)
	if err != nil || len(recent) != 2 || recent[0].ID != "s2" || recent[1].ID != "s1" {
		t.Errorf("recent sessions: %+v %v", recent, err)
	}
	ps, err := db.Projects(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2 || ps[0].Project != "p1" || ps[0].Sessions != 2 || ps[0].Observations != 3 || ps[1].Observations != 2 {
		t.Fatalf("projects: %+v", ps)
	}
	for _, c := range []struct {
		project string
		want    []DayCount
	}{
		{"", []DayCount{{day.Truncate(24 * time.Hour), memory.TypeNote, 3}, {day.Truncate(24*time.Hour).AddDate(0, 0, 1), memory.TypeDecision, 1}}},
		{"p2", []DayCount{{day.Truncate(24 * time.Hour), memory.TypeNote, 1}}},
	} {
		got, err := db.ObservationsPerDay(ctx, c.project, day.AddDate(0, 0, -90))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(c.want) {
			t.Fatalf("%q: got %+v, want %+v", c.project, got, c.want)
		}
		for i := range got {
			if !got[i].Day.Equal(c.want[i].Day) || got[i].Type != c.want[i].Type || got[i].Count != c.want[i].Count {
				t.Errorf("%q: got %+v, want %+v", c.project, got[i], c.want[i])
			}
		}
	}
}

func TestWatcherSeesOtherConnections(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	other, err := Open(ctx, db.Path(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	w, err := db.Watch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	v1, err := w.Version(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := w.Version(ctx); v != v1 {
		t.Fatalf("version moved without a write: %d -> %d", v1, v)
	}
	startTest(t, other, "s9", "p9")
	if v, _ := w.Version(ctx); v == v1 {
		t.Error("a commit of another process's connection did not move the version")
	}
	v2, _ := w.Version(ctx)
	startTest(t, db, "s10", "p9")
	if v, _ := w.Version(ctx); v == v2 {
		t.Error("a commit through the same handle's pool did not move the version")
	}
}

// daysMatch fails when observation_days differs from counting observations.
func daysMatch(t *testing.T, db *DB, when string) {
	t.Helper()
	var diff int
	if err := db.x.Get(&diff, `SELECT count(*) FROM (
		SELECT project, day, type, n FROM observation_days
		EXCEPT SELECT project, created_at / 86400000, type, count(*) FROM observations GROUP BY 1, 2, 3
		UNION ALL
		SELECT project, created_at / 86400000, type, count(*) FROM observations GROUP BY 1, 2, 3
		EXCEPT SELECT project, day, type, n FROM observation_days)`); err != nil {
		t.Fatal(err)
	}
	if diff != 0 {
		t.Errorf("%s: observation_days is out of step with observations (%d rows differ)", when, diff)
	}
}

func TestObservationDaysFollowEveryChange(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	startTest(t, db, "s1", "p1")
	day := time.Date(2026, 3, 10, 23, 59, 0, 0, time.UTC)
	var ids []int64
	for i := range 5 {
		a, err := db.AddObservation(ctx, memory.Observation{SessionID: "s1", Type: memory.TypeNote,
			Title: fmt.Sprintf("o%d", i), CreatedAt: day.Add(time.Duration(i) * time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, a.ID)
	}
	daysMatch(t, db, "after adding")
	obs, _ := db.Observations(ctx, ids[:1])
	obs[0].Type = memory.TypeDecision
	if _, err := db.UpdateObservation(ctx, obs[0]); err != nil {
		t.Fatal(err)
	}
	daysMatch(t, db, "after a type edit")
	if _, err := db.DeleteRecords(ctx, ids[1:3], nil); err != nil {
		t.Fatal(err)
	}
	daysMatch(t, db, "after forgetting two")
	var recs []memory.Record
	recs = append(recs, memory.Record{Kind: memory.KindSession, Session: &memory.Session{ID: "imp", Project: "p2", Agent: "test",
		StartedAt: day, LastActivityAt: day}})
	for i := range bulkObservations + 10 {
		recs = append(recs, memory.Record{Kind: memory.KindObservation, Observation: &memory.Observation{SessionID: "imp",
			Type: memory.Types()[i%len(memory.Types())], Title: fmt.Sprintf("imported %d", i),
			CreatedAt: day.Add(time.Duration(i) * time.Hour)}})
	}
	if _, err := db.Import(ctx, recs); err != nil {
		t.Fatal(err)
	}
	daysMatch(t, db, "after a bulk import")
	if _, err := db.DeleteSession(ctx, "imp"); err != nil {
		t.Fatal(err)
	}
	daysMatch(t, db, "after forgetting a session")
	var n int
	if err := db.x.Get(&n, `SELECT count(*) FROM observation_days WHERE project = 'p2'`); err != nil || n != 0 {
		t.Errorf("rows of a forgotten project stay: %d %v", n, err)
	}
}
