package store

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/memhq/mem/internal/memory"
)

// fileSessionsRows is file_sessions as it is, and as the observations say it
// should be.
func fileSessionsRows(t *testing.T, db *DB) (have, want []string) {
	t.Helper()
	read := func(q string) []string {
		var rows []struct {
			Path, Project, SessionID string
			LastID, Changes          int64
		}
		if err := db.x.Select(&rows, q); err != nil {
			t.Fatal(err)
		}
		out := make([]string, len(rows))
		for i, r := range rows {
			out[i] = fmt.Sprintf("%s %s %s #%d changes %d", r.Path, r.Project, r.SessionID, r.LastID, r.Changes)
		}
		return out
	}
	have = read(`SELECT path, project, session_id AS sessionid, last_id AS lastid, changes FROM file_sessions ORDER BY 1, 2, 3`)
	want = read(`SELECT f.path, o.project, o.session_id AS sessionid, max(o.id) AS lastid, sum(f.modified) AS changes
		FROM observation_files f JOIN observations o ON o.id = f.observation_id
		WHERE o.superseded_by IS NULL GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`)
	return have, want
}

// latestByJoin is FileHistory's sessions worked out from the observations
// alone: each session's newest live observation of the file, the n latest
// sessions.
func latestByJoin(t *testing.T, db *DB, project string, paths []string, n int) []string {
	t.Helper()
	list, _ := json.Marshal(paths)
	var rows []struct {
		ID        int64
		SessionID string
	}
	if err := db.x.Select(&rows, `WITH f AS (
			SELECT DISTINCT observation_id AS id FROM observation_files
			WHERE path IN (SELECT value FROM json_each(?)))
		SELECT max(o.id) AS id, o.session_id AS sessionid FROM f JOIN observations o ON o.id = f.id
		WHERE o.project = ? AND o.superseded_by IS NULL
		GROUP BY o.session_id ORDER BY max(o.id) DESC LIMIT ?`, string(list), project, n); err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = fmt.Sprintf("#%d %s", r.ID, r.SessionID)
	}
	return out
}

// checkFileSessions fails when file_sessions is not what the observations
// say, or when FileHistory gives other than the join over them.
func checkFileSessions(t *testing.T, db *DB, step string) {
	t.Helper()
	if have, want := fileSessionsRows(t, db); !reflect.DeepEqual(have, want) {
		t.Fatalf("%s: file_sessions\n%q\nwant\n%q", step, have, want)
	}
	for _, c := range []struct {
		project string
		paths   []string
		n       int
	}{
		{"p1", []string{"a.go"}, 60},
		{"p1", []string{"a.go", "/w/a.go"}, 60},
		{"p1", []string{"/w/a.go", "a.go"}, 2},
		{"p1", []string{"a.go", "/w/a.go"}, 1},
		{"p2", []string{"a.go"}, 60},
		{"p2", []string{"a.go", "b.go"}, 60},
		{"p2", []string{"a.go", "b.go"}, 1},
		{"p1", []string{"b.go"}, 60},
	} {
		got, err := db.FileHistory(context.Background(), c.project, c.paths, c.n)
		if err != nil {
			t.Fatal(err)
		}
		have := make([]string, len(got.Sessions))
		ids := make([]string, len(got.Sessions))
		for i, o := range got.Sessions {
			have[i] = fmt.Sprintf("#%d %s", o.ID, o.SessionID)
			ids[i] = o.SessionID
		}
		if want := latestByJoin(t, db, c.project, c.paths, c.n); !reflect.DeepEqual(have, want) {
			t.Fatalf("%s: FileHistory(%s, %q, %d) = %q, want %q", step, c.project, c.paths, c.n, have, want)
		}
		// Its changes are its sessions' live observations that changed
		// the file, counted by spelling, the largest.
		want := changesByJoin(t, db, c.project, c.paths, ids)
		if !maps.Equal(got.Changes, want) {
			t.Fatalf("%s: FileHistory(%s, %q, %d) changes %v, want %v", step, c.project, c.paths, c.n, got.Changes, want)
		}
	}
}

// changesByJoin is FileHistory's changes worked out from the observations
// alone, for the given sessions.
func changesByJoin(t *testing.T, db *DB, project string, paths, sessions []string) map[string]int {
	t.Helper()
	pl, _ := json.Marshal(paths)
	sl, _ := json.Marshal(sessions)
	var rows []struct {
		SessionID string
		N         int
	}
	if err := db.x.Select(&rows, `SELECT session_id AS sessionid, max(n) AS n FROM (
			SELECT o.session_id, f.path, count(*) AS n FROM observation_files f JOIN observations o ON o.id = f.observation_id
			WHERE f.path IN (SELECT value FROM json_each(?)) AND f.modified = 1 AND o.project = ? AND o.superseded_by IS NULL
				AND o.session_id IN (SELECT value FROM json_each(?))
			GROUP BY o.session_id, f.path)
		GROUP BY session_id`, string(pl), project, string(sl)); err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, r := range rows {
		out[r.SessionID] = r.N
	}
	return out
}

// file_sessions follows every way an observation comes, changes and goes:
// added, superseded, reviewed, consolidated, forgotten, expired, its session
// or project deleted, imported (row by row and in one pass), pulled from a
// team and deleted by a tombstone.
func TestFileSessionsKeptInStep(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	t0 := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	add := func(session string, read, modified []string) int64 {
		t.Helper()
		a, err := db.AddObservation(ctx, memory.Observation{SessionID: session, Type: memory.TypeChange,
			Title: fmt.Sprintf("change %d", time.Now().UnixNano()), FilesRead: read, FilesModified: modified})
		if err != nil {
			t.Fatal(err)
		}
		return a.ID
	}
	for i, p := range []string{"p1", "p1", "p1", "p2", "p1"} {
		startTest(t, db, fmt.Sprintf("s%d", i+1), p)
	}
	startTest(t, db, "s9", "p1")
	ids := map[string]int64{}
	ids["s1a"] = add("s1", []string{"a.go"}, nil)
	ids["s1b"] = add("s1", nil, []string{"/w/a.go"})
	ids["s2a"] = add("s2", []string{"a.go", "b.go"}, []string{"a.go"})
	ids["s3a"] = add("s3", []string{"/w/a.go"}, nil)
	ids["s4a"] = add("s4", []string{"a.go"}, nil)
	ids["s2b"] = add("s2", []string{"b.go"}, nil)
	ids["s3b"] = add("s3", []string{"a.go"}, nil)
	ids["s5a"] = add("s5", []string{"a.go"}, []string{"b.go"})
	// A session that changed one file three times: its count of changes
	// moves while its row stays.
	ids["s9a"] = add("s9", nil, []string{"c.go"})
	ids["s9b"] = add("s9", []string{"c.go"}, []string{"c.go", "c.go"})
	ids["s9c"] = add("s9", nil, []string{"c.go", "a.go"})
	checkFileSessions(t, db, "added")

	steps := []struct {
		name string
		do   func() error
	}{
		{"superseded", func() error { return db.Supersede(ctx, ids["s3b"], ids["s3a"]) }},
		{"reviewed", func() error {
			return db.SetReview(ctx, map[int64]memory.Review{ids["s2a"]: {Flag: "secret"}}, nil)
		}},
		{"consolidated", func() error { return db.Consolidate(ctx, ids["s1a"], []int64{ids["s1b"]}) }},
		{"forgotten", func() error { _, err := db.DeleteRecords(ctx, []int64{ids["s5a"]}, nil); return err }},
		{"expired", func() error { return db.ForgetObservations(ctx, []int64{ids["s2b"]}) }},
		{"one of three changes reviewed", func() error {
			return db.SetReview(ctx, map[int64]memory.Review{ids["s9a"]: {Flag: "secret"}}, nil)
		}},
		{"one of three changes superseded", func() error { return db.Supersede(ctx, ids["s9b"], ids["s9c"]) }},
		{"one of three changes forgotten", func() error { _, err := db.DeleteRecords(ctx, []int64{ids["s9a"]}, nil); return err }},
		{"more", func() error {
			ids["s5b"] = add("s5", []string{"/w/a.go"}, nil)
			ids["s2c"] = add("s2", []string{"a.go"}, nil)
			return nil
		}},
		{"session deleted", func() error { _, err := db.DeleteSession(ctx, "s2"); return err }},
		{"imported", func() error {
			sess := memory.Session{ID: "s6", Project: "p1", StartedAt: t0, LastActivityAt: t0, Status: memory.StatusActive}
			var recs []memory.Record
			recs = append(recs, memory.Record{Kind: memory.KindSession, Session: &sess})
			for i := range 3 {
				recs = append(recs, memory.Record{Kind: memory.KindObservation, Observation: &memory.Observation{
					SessionID: "s6", Type: memory.TypeChange, Title: fmt.Sprintf("imported %d", i),
					FilesRead: []string{"a.go"}, CreatedAt: t0}})
			}
			_, err := db.Import(ctx, recs)
			return err
		}},
		{"imported in one pass", func() error {
			db.importMode = importRebuild
			defer func() { db.importMode = importAuto }()
			sess := memory.Session{ID: "s7", Project: "p1", StartedAt: t0, LastActivityAt: t0, Status: memory.StatusActive}
			recs := []memory.Record{{Kind: memory.KindSession, Session: &sess},
				{Kind: memory.KindObservation, Observation: &memory.Observation{SessionID: "s7", Type: memory.TypeChange,
					Title: "imported whole", FilesModified: []string{"/w/a.go", "b.go"}, CreatedAt: t0}}}
			_, err := db.Import(ctx, recs)
			return err
		}},
		{"pulled", func() error {
			if _, err := db.Share(ctx, "p1", t0); err != nil {
				return err
			}
			if _, err := db.BeginSync(ctx, "c1", "p1"); err != nil {
				return err
			}
			sess := memory.Session{ID: "s8", Project: "p1", StartedAt: t0, LastActivityAt: t0, Status: memory.StatusActive}
			obs := memory.Observation{UUID: "o8", SessionID: "s8", Project: "p1", Type: "decision", Title: "pulled",
				FilesRead: []string{"a.go"}, CreatedAt: t0}
			_, err := db.ApplyPulled(ctx, "c1", "p1", []Incoming{
				{Seq: 1, Key: memory.KeySession + "s8", Record: memory.Record{Kind: memory.KindSession, Session: &sess}},
				{Seq: 2, Key: memory.KeyObservation + "o8", Record: memory.Record{Kind: memory.KindObservation, Observation: &obs}},
			}, 2, t0)
			return err
		}},
		{"tombstone", func() error {
			_, err := db.ApplyPulled(ctx, "c1", "p1", []Incoming{{Seq: 3, Key: memory.KeyObservation + "o8", Tombstone: true, Stamp: 5}}, 3, t0)
			return err
		}},
		{"project deleted", func() error { _, err := db.DeleteProject(ctx, "p2"); return err }},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		checkFileSessions(t, db, s.name)
	}
}

// The migration fills file_sessions from the observations already held.
func TestFileSessionsMigrationFills(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	startTest(t, db, "s1", "p1")
	startTest(t, db, "s2", "p1")
	for i, s := range []string{"s1", "s2", "s1", "s1"} {
		o := memory.Observation{SessionID: s, Type: memory.TypeChange, Title: fmt.Sprintf("change %d", i), FilesRead: []string{"a.go"}}
		if i > 0 {
			o.FilesModified = []string{"a.go"} // counted as changes since migration 00017
		}
		if _, err := db.AddObservation(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	p, err := db.provider()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.DownTo(ctx, 14); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Up(ctx); err != nil {
		t.Fatal(err)
	}
	have, want := fileSessionsRows(t, db)
	if len(want) != 2 || !reflect.DeepEqual(have, want) {
		t.Fatalf("after the migration: %q, want %q", have, want)
	}
}

// FileWords gives the observations ids and ObservationsForFile's of each
// path, of the sessions asked for only, with their words.
func TestFileWords(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	for i, p := range []string{"p1", "p1", "p2", "p1"} {
		startTest(t, db, fmt.Sprintf("s%d", i+1), p)
	}
	var all []int64
	for i, c := range []struct {
		session    string
		read, mod  []string
		supersedes int
	}{
		{"s1", []string{"a.go"}, nil, 0}, {"s2", nil, []string{"/w/a.go"}, 0}, {"s1", []string{"b.go"}, nil, 0},
		{"s3", []string{"a.go"}, nil, 0}, {"s2", []string{"a.go"}, nil, 0}, {"s4", []string{"a.go", "/w/a.go"}, nil, 0},
		{"s1", []string{"a.go"}, nil, 0}, {"s2", []string{"a.go"}, nil, 5},
	} {
		a, err := db.AddObservation(ctx, memory.Observation{SessionID: c.session, Type: memory.TypeChange,
			Title: fmt.Sprintf("change %d", i), Narrative: fmt.Sprintf("why %d", i), Facts: []string{fmt.Sprintf("fact %d", i)},
			Concepts: []string{"c"}, FilesRead: c.read, FilesModified: c.mod})
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, a.ID)
		if c.supersedes > 0 {
			if err := db.Supersede(ctx, all[c.supersedes-1], a.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	show := func(obs []memory.Observation) []string {
		out := make([]string, len(obs))
		for i, o := range obs {
			out[i] = fmt.Sprintf("#%d %s %s|%s|%s|%q|%q|%q|%q", o.ID, o.SessionID, o.Title, o.Subtitle, o.Narrative, o.Facts, o.Concepts, o.FilesRead, o.FilesModified)
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	for _, c := range []struct {
		paths    []string
		n        int
		ids      []int64
		sessions []string
	}{
		{[]string{"a.go", "/w/a.go"}, 100, []int64{all[2]}, []string{"s1", "s2", "s4"}},
		{[]string{"a.go"}, 2, []int64{all[0], all[1]}, []string{"s1", "s2"}},
		{[]string{"/w/a.go"}, 100, nil, []string{"s2"}},
		{[]string{"b.go"}, 100, []int64{all[3]}, []string{"s1", "s3"}},
	} {
		got, err := db.FileWords(ctx, "p1", c.paths, c.n, c.ids, c.sessions)
		if err != nil {
			t.Fatal(err)
		}
		want, err := db.Observations(ctx, c.ids)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range c.paths {
			obs, err := db.ObservationsForFile(ctx, "p1", p, c.n)
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, obs...)
		}
		want = slices.DeleteFunc(want, func(o memory.Observation) bool { return !slices.Contains(c.sessions, o.SessionID) })
		if have, want := show(got), show(want); !reflect.DeepEqual(have, want) {
			t.Fatalf("FileWords(%q, %d, %v, %v) =\n%q\nwant\n%q", c.paths, c.n, c.ids, c.sessions, have, want)
		}
	}
}
