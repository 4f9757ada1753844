package store

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/memhq/mem/internal/memory"
)

// A pulled summary replaces the session's summary only when it is newer,
// and what a pull writes is never queued for a push.
func TestApplyPulledSummaryNewestWins(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	t0 := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	if _, err := db.Share(ctx, "p", t0); err != nil {
		t.Fatal(err)
	}
	if _, err := db.BeginSync(ctx, "c1", "p"); err != nil {
		t.Fatal(err)
	}
	sess := memory.Session{ID: "s1", Project: "p", StartedAt: t0, LastActivityAt: t0, Status: memory.StatusActive}
	sum := func(text string, at time.Time) memory.Summary {
		return memory.Summary{UUID: "u-" + text, SessionID: "s1", Project: "p", Learned: text, Text: text, CreatedAt: at}
	}
	in := func(seq int64, r memory.Record) Incoming {
		key := memory.KeySession + "s1"
		if r.Kind == memory.KindSummary {
			key = memory.KeySummary + "s1"
		}
		return Incoming{Seq: seq, Key: key, Origin: "other", Record: r}
	}
	s1, s0, s2 := sum("middle", t0.Add(time.Hour)), sum("older", t0), sum("newest", t0.Add(2*time.Hour))
	steps := []struct {
		name    string
		recs    []Incoming
		want    string
		updated int
	}{
		{"first", []Incoming{in(1, memory.Record{Kind: memory.KindSession, Session: &sess}),
			in(2, memory.Record{Kind: memory.KindSummary, Summary: &s1})}, "middle", 1},
		{"older loses", []Incoming{in(3, memory.Record{Kind: memory.KindSummary, Summary: &s0})}, "middle", 0},
		{"newer wins", []Incoming{in(4, memory.Record{Kind: memory.KindSummary, Summary: &s2})}, "newest", 1},
		{"same again", []Incoming{in(5, memory.Record{Kind: memory.KindSummary, Summary: &s2})}, "newest", 0},
	}
	for _, st := range steps {
		res, err := db.ApplyPulled(ctx, "c1", "p", st.recs, st.recs[len(st.recs)-1].Seq, t0)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if res.Updated != st.updated {
			t.Errorf("%s: updated %d, want %d", st.name, res.Updated, st.updated)
		}
		var text, uuid string
		if err := db.SQL().QueryRow(`SELECT text, uuid FROM summaries WHERE session_id = 's1'`).Scan(&text, &uuid); err != nil {
			t.Fatal(err)
		}
		if text != st.want || uuid != "u-"+st.want {
			t.Errorf("%s: summary %q (%s), want %q", st.name, text, uuid, st.want)
		}
		var n int
		if err := db.SQL().Get(&n, `SELECT count(*) FROM summaries_fts WHERE summaries_fts MATCH ?`, st.want); err != nil || n != 1 {
			t.Errorf("%s: search finds %d summaries with %q (%v), want 1", st.name, n, st.want, err)
		}
		if err := db.SQL().Get(&n, `SELECT count(*) FROM sync_log`); err != nil || n != 0 {
			t.Errorf("%s: %d pulled changes queued for a push, want 0", st.name, n)
		}
	}
	// A summary written here is queued, and newer than the pulled one it wins.
	if _, err := db.PutSummary(ctx, sum("mine", t0.Add(3*time.Hour))); err != nil {
		t.Fatal(err)
	}
	out, _, err := db.Outbox(ctx, "p", 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 || out[0].Key != memory.KeySession+"s1" || out[1].Key != memory.KeySummary+"s1" || out[1].Record.Summary.Text != "mine" ||
		out[1].Stamp != t0.Add(3*time.Hour).UnixMilli() {
		t.Errorf("outbox: %+v, want the session then the summary \"mine\"", out)
	}
}

// A tombstone deletes the record, stays, and keeps the record from coming
// back in a later pull.
func TestApplyPulledTombstoneStays(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	t0 := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	if _, err := db.Share(ctx, "p", t0); err != nil {
		t.Fatal(err)
	}
	if _, err := db.BeginSync(ctx, "c1", "p"); err != nil {
		t.Fatal(err)
	}
	sess := memory.Session{ID: "s1", Project: "p", StartedAt: t0, LastActivityAt: t0, Status: memory.StatusActive}
	obs := memory.Observation{UUID: "o1", SessionID: "s1", Project: "p", Type: "decision", Title: "keep the WAL", CreatedAt: t0}
	recs := []Incoming{
		{Seq: 1, Key: memory.KeySession + "s1", Record: memory.Record{Kind: memory.KindSession, Session: &sess}},
		{Seq: 2, Key: memory.KeyObservation + "o1", Record: memory.Record{Kind: memory.KindObservation, Observation: &obs}},
	}
	count := func() int {
		var n int
		if err := db.SQL().Get(&n, `SELECT count(*) FROM observations WHERE uuid = 'o1'`); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if _, err := db.ApplyPulled(ctx, "c1", "p", recs, 2, t0); err != nil || count() != 1 {
		t.Fatalf("first pull: %v, %d rows", err, count())
	}
	if _, err := db.ApplyPulled(ctx, "c1", "p", []Incoming{{Seq: 3, Key: memory.KeyObservation + "o1", Tombstone: true, Stamp: 5}}, 3, t0); err != nil || count() != 0 {
		t.Fatalf("tombstone: %v, %d rows", err, count())
	}
	if _, err := db.ApplyPulled(ctx, "c1", "p", recs, 4, t0); err != nil || count() != 0 {
		t.Fatalf("the record came back: %v, %d rows", err, count())
	}
}

// Pulled records name sessions as the cluster does (memory.TeamSessionID):
// each gets the plain id here unless that id is another project's here,
// and keeps the id it got; a tombstone deletes only its project's session.
func TestApplyPulledSessionIDsPerProject(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	t0 := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	for _, p := range []string{"p", "q"} {
		if _, err := db.Share(ctx, p, t0); err != nil {
			t.Fatal(err)
		}
		if _, err := db.BeginSync(ctx, "c1", p); err != nil {
			t.Fatal(err)
		}
	}
	// This file's own session "x" is in project q.
	if _, _, err := db.StartSession(ctx, memory.Session{ID: "x", Project: "q", StartedAt: t0}); err != nil {
		t.Fatal(err)
	}
	seq := int64(0)
	pull := func(project, name, obsUUID string) {
		t.Helper()
		sess := memory.Session{ID: name, Project: project, StartedAt: t0, LastActivityAt: t0, Status: memory.StatusActive}
		obs := memory.Observation{UUID: obsUUID, SessionID: name, Project: project, Type: "decision", Title: "title " + obsUUID, CreatedAt: t0}
		seq += 2
		recs := []Incoming{
			{Seq: seq - 1, Key: memory.KeySession + name, Origin: "other", Record: memory.Record{Kind: memory.KindSession, Session: &sess}},
			{Seq: seq, Key: memory.KeyObservation + obsUUID, Origin: "other", Record: memory.Record{Kind: memory.KindObservation, Observation: &obs}},
		}
		if _, err := db.ApplyPulled(ctx, "c1", project, recs, seq, t0); err != nil {
			t.Fatalf("pulling %s of %s: %v", name, project, err)
		}
	}
	sessionOfObs := func(uuid string) (string, string) {
		t.Helper()
		var id, project string
		if err := db.SQL().QueryRow(`SELECT s.id, s.project FROM observations o JOIN sessions s ON s.id = o.session_id
			WHERE o.uuid = ?`, uuid).Scan(&id, &project); err != nil {
			t.Fatalf("observation %s: %v", uuid, err)
		}
		return id, project
	}
	px, py, qy := memory.TeamSessionID("x", "p"), memory.TeamSessionID("y", "p"), memory.TeamSessionID("y", "q")
	steps := []struct {
		name, project, clusterName, obs string
		wantID                          string
	}{
		{"the plain id is another project's here", "p", px, "o1", px},
		{"the same session again", "p", px, "o2", px},
		{"a plain id free here", "p", py, "o3", "y"},
		{"then taken: the other project's session gets the cluster's name", "q", qy, "o4", qy},
		{"a plain name from an older mem, the id another project's here", "p", "x", "o5", px},
		{"a plain name from an older mem, the id this project's here", "p", "y", "o6", "y"},
	}
	for _, st := range steps {
		pull(st.project, st.clusterName, st.obs)
		if id, project := sessionOfObs(st.obs); id != st.wantID || project != st.project {
			t.Errorf("%s: the observation is in session %s of %s, want %s of %s", st.name, id, project, st.wantID, st.project)
		}
	}
	// The tombstone of p's x deletes p's session, not q's own x.
	seq++
	if _, err := db.ApplyPulled(ctx, "c1", "p", []Incoming{{Seq: seq, Key: memory.KeySession + px, Tombstone: true, Stamp: 9}}, seq, t0); err != nil {
		t.Fatal(err)
	}
	var ids []string
	if err := db.SQL().Select(&ids, `SELECT id || ' ' || project FROM sessions ORDER BY id`); err != nil {
		t.Fatal(err)
	}
	if want := []string{"x q", "y p", qy + " q"}; len(ids) != len(want) || ids[0] != want[0] || ids[1] != want[1] || ids[2] != want[2] {
		t.Errorf("sessions after the tombstone: %q, want %q", ids, want)
	}
}

// A summary's tombstone stands for the versions written before the forget:
// a summary written after it wins, here and in what is pushed and pulled,
// and a second forget moves the tombstone on.
func TestSummaryNewerThanItsTombstoneWins(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	t0 := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	if _, err := db.Share(ctx, "p", t0); err != nil {
		t.Fatal(err)
	}
	if _, err := db.BeginSync(ctx, "c1", "p"); err != nil {
		t.Fatal(err)
	}
	startTest(t, db, "s1", "p")
	put := func(text string, at time.Time) memory.Summary {
		t.Helper()
		s, err := db.PutSummary(ctx, memory.Summary{SessionID: "s1", Text: text, Learned: text, CreatedAt: at})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	tomb := func() int64 {
		t.Helper()
		var at int64
		if err := db.SQL().Get(&at, `SELECT deleted_at FROM sync_tombstones WHERE key = 'summary:s1'`); err != nil {
			t.Fatal(err)
		}
		return at
	}
	// What the outbox sends for the session's summary key.
	pushed := func() Outgoing {
		t.Helper()
		out, _, err := db.Outbox(ctx, "p", 0, 1000)
		if err != nil {
			t.Fatal(err)
		}
		var last Outgoing
		for _, o := range out {
			if o.Key == memory.KeySummary+"s1" {
				last = o
			}
		}
		return last
	}
	text := func() string {
		t.Helper()
		var s []string
		if err := db.SQL().Select(&s, `SELECT text FROM summaries WHERE session_id = 's1'`); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(s)
	}

	old := put("forgotten words", t0)
	if _, err := db.DeleteRecords(ctx, nil, []int64{old.ID}); err != nil {
		t.Fatal(err)
	}
	first := tomb()
	if o := pushed(); !o.Tombstone || o.Stamp != first {
		t.Errorf("after the forget the outbox sends %+v, want the tombstone", o)
	}
	fresh := put("later work", time.Now().Add(time.Second))
	if o := pushed(); o.Tombstone || o.Record == nil || o.Record.Summary.Text != "later work" {
		t.Errorf("after a newer summary the outbox sends %+v, want that summary", o)
	}

	// Pulled: an old version stays out, and an old tombstone leaves the newer summary.
	sess := memory.Session{ID: "s1", Project: "p", StartedAt: t0, LastActivityAt: t0, Status: memory.StatusActive}
	oldRec := memory.Summary{UUID: "u-old", SessionID: "s1", Project: "p", Text: "forgotten words", CreatedAt: t0}
	recs := []Incoming{
		{Seq: 1, Key: memory.KeySession + "s1", Record: memory.Record{Kind: memory.KindSession, Session: &sess}},
		{Seq: 2, Key: memory.KeySummary + "s1", Stamp: t0.UnixMilli(), Record: memory.Record{Kind: memory.KindSummary, Summary: &oldRec}},
		{Seq: 3, Key: memory.KeySummary + "s1", Stamp: first, Tombstone: true},
	}
	if _, err := db.ApplyPulled(ctx, "c1", "p", recs, 3, t0); err != nil {
		t.Fatal(err)
	}
	if got := text(); got != "[later work]" {
		t.Errorf("after pulling the old version and its tombstone: %s, want [later work]", got)
	}

	// Forgotten again: the tombstone moves past the fresh summary, and a
	// pulled copy of that summary stays out.
	if _, err := db.DeleteRecords(ctx, nil, []int64{fresh.ID}); err != nil {
		t.Fatal(err)
	}
	if second := tomb(); second < fresh.CreatedAt.UnixMilli() {
		t.Errorf("second forget left the tombstone at %d, before the summary it removed (%d)", second, fresh.CreatedAt.UnixMilli())
	}
	if o := pushed(); !o.Tombstone {
		t.Errorf("after the second forget the outbox sends %+v, want the tombstone", o)
	}
	freshRec := fresh
	if _, err := db.ApplyPulled(ctx, "c1", "p", []Incoming{{Seq: 4, Key: memory.KeySummary + "s1", Stamp: fresh.CreatedAt.UnixMilli(),
		Record: memory.Record{Kind: memory.KindSummary, Summary: &freshRec}}}, 4, t0); err != nil {
		t.Fatal(err)
	}
	if got := text(); got != "[]" {
		t.Errorf("the forgotten summary came back from a pull: %s", got)
	}
	// A newer summary from another member is pulled in.
	newer := memory.Summary{UUID: "u-newer", SessionID: "s1", Project: "p", Text: "their words", CreatedAt: time.Now().Add(time.Minute)}
	if _, err := db.ApplyPulled(ctx, "c1", "p", []Incoming{{Seq: 5, Key: memory.KeySummary + "s1", Stamp: newer.CreatedAt.UnixMilli(),
		Record: memory.Record{Kind: memory.KindSummary, Summary: &newer}}}, 5, t0); err != nil {
		t.Fatal(err)
	}
	if got := text(); got != "[their words]" {
		t.Errorf("a summary newer than the tombstone: %s, want [their words]", got)
	}
}

// A forgotten session's summary stays out of a pull, however new, and the
// pull goes on.
func TestPulledSummaryOfAForgottenSessionStaysOut(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	t0 := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	if _, err := db.Share(ctx, "p", t0); err != nil {
		t.Fatal(err)
	}
	if _, err := db.BeginSync(ctx, "c1", "p"); err != nil {
		t.Fatal(err)
	}
	startTest(t, db, "s1", "p")
	if _, err := db.DeleteSession(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	newer := memory.Summary{UUID: "u-newer", SessionID: "s1", Project: "p", Text: "written elsewhere", CreatedAt: time.Now().Add(time.Minute)}
	res, err := db.ApplyPulled(ctx, "c1", "p", []Incoming{{Seq: 1, Key: memory.KeySummary + "s1", Stamp: newer.CreatedAt.UnixMilli(),
		Record: memory.Record{Kind: memory.KindSummary, Summary: &newer}}}, 1, t0)
	if err != nil || res.Skipped != 1 {
		t.Fatalf("pull: %+v, %v; want it skipped", res, err)
	}
}

// A summary's tombstone and its session's tombstone reach the session by
// the id it has here (toLocal), whether that is the plain id or, when the
// plain id is another project's here, the cluster's name.
func TestPulledSummaryTombstonesMeetTheLocalSession(t *testing.T) {
	ctx := context.Background()
	t0 := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	for _, tc := range []struct {
		name, plain string
		local       func(clusterName string) string
	}{
		{"plain id free here", "y", func(string) string { return "y" }},
		{"plain id another project's here", "x", func(n string) string { return n }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := openTest(t)
			for _, p := range []string{"p", "q"} {
				if _, err := db.Share(ctx, p, t0); err != nil {
					t.Fatal(err)
				}
				if _, err := db.BeginSync(ctx, "c1", p); err != nil {
					t.Fatal(err)
				}
			}
			startTest(t, db, "x", "q")
			name := memory.TeamSessionID(tc.plain, "p")
			local := tc.local(name)
			seq := int64(0)
			pull := func(in Incoming) Pulled {
				t.Helper()
				seq++
				in.Seq = seq
				res, err := db.ApplyPulled(ctx, "c1", "p", []Incoming{in}, seq, t0)
				if err != nil {
					t.Fatal(err)
				}
				return res
			}
			summary := func(text string, at time.Time) Incoming {
				s := memory.Summary{UUID: "u-" + text, SessionID: name, Project: "p", Text: text, Learned: text, CreatedAt: at}
				return Incoming{Key: memory.KeySummary + name, Stamp: at.UnixMilli(), Record: memory.Record{Kind: memory.KindSummary, Summary: &s}}
			}
			texts := func() string {
				t.Helper()
				var s []string
				if err := db.SQL().Select(&s, `SELECT text FROM summaries WHERE session_id = ? AND project = 'p'`, local); err != nil {
					t.Fatal(err)
				}
				return fmt.Sprint(s)
			}
			sess := memory.Session{ID: name, Project: "p", StartedAt: t0, LastActivityAt: t0, Status: memory.StatusActive}
			pull(Incoming{Key: memory.KeySession + name, Record: memory.Record{Kind: memory.KindSession, Session: &sess}})
			pull(summary("old", t0))
			if got := texts(); got != "[old]" {
				t.Fatalf("session %s holds %s, want [old]", local, got)
			}
			pull(Incoming{Key: memory.KeySummary + name, Stamp: t0.UnixMilli() - 1, Tombstone: true})
			if got := texts(); got != "[old]" {
				t.Errorf("a tombstone older than the summary removed it: %s", got)
			}
			pull(Incoming{Key: memory.KeySummary + name, Stamp: t0.UnixMilli() + 1, Tombstone: true})
			if got := texts(); got != "[]" {
				t.Errorf("the summary's tombstone left %s", got)
			}
			pull(summary("later", t0.Add(time.Second)))
			if got := texts(); got != "[later]" {
				t.Errorf("a summary newer than its tombstone: %s, want [later]", got)
			}
			if _, err := db.DeleteSession(ctx, local); err != nil {
				t.Fatal(err)
			}
			if res := pull(summary("after the forget", time.Now().Add(time.Minute))); res.Skipped != 1 {
				t.Errorf("a summary of the forgotten session: %+v, want it skipped", res)
			}
			if got := texts(); got != "[]" {
				t.Errorf("the forgotten session has summaries again: %s", got)
			}
			var own int
			if err := db.SQL().Get(&own, `SELECT count(*) FROM sessions WHERE id = 'x' AND project = 'q'`); err != nil || own != 1 {
				t.Errorf("q's own session x: %d, %v", own, err)
			}
		})
	}
}

// A row pulled for one project that names a record of another project
// here (an observation's uuid, as a tombstone or as a record) is
// quarantined and changes nothing; a row with a Problem is quarantined; the
// quarantine is counted once per row, however often the page is read, and
// goes with the cursor on unshare.
func TestApplyPulledQuarantinesAnotherProjectsKey(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	t0 := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	if _, err := db.Share(ctx, "p", t0); err != nil {
		t.Fatal(err)
	}
	if _, err := db.BeginSync(ctx, "c1", "p"); err != nil {
		t.Fatal(err)
	}
	mine := memory.Session{ID: "s-q", Project: "q", StartedAt: t0, LastActivityAt: t0, Status: memory.StatusActive}
	if _, err := db.Import(ctx, []memory.Record{{Kind: memory.KindSession, Session: &mine},
		{Kind: memory.KindObservation, Observation: &memory.Observation{UUID: "o-q", SessionID: "s-q", Project: "q", Type: "decision",
			Title: "kept in q", CreatedAt: t0}}}); err != nil {
		t.Fatal(err)
	}
	sess := memory.Session{ID: "s-p", Project: "p", StartedAt: t0, LastActivityAt: t0, Status: memory.StatusActive}
	forged := memory.Observation{UUID: "o-q", SessionID: "s-p", Project: "p", Type: "decision", Title: "forged", CreatedAt: t0}
	page := []Incoming{
		{Seq: 1, Key: memory.KeySession + "s-p", Record: memory.Record{Kind: memory.KindSession, Session: &sess}},
		{Seq: 2, Key: memory.KeyObservation + "o-q", Tombstone: true, Stamp: t0.UnixMilli()},
		{Seq: 3, Key: memory.KeyObservation + "o-q", Record: memory.Record{Kind: memory.KindObservation, Observation: &forged}},
		{Seq: 4, Key: "nonsense", Problem: "key \"nonsense\""},
	}
	for round := range 2 {
		res, err := db.ApplyPulled(ctx, "c1", "p", page, 4, t0)
		if err != nil {
			t.Fatal(err)
		}
		if res.Quarantined != 3 || res.Removed != 0 {
			t.Errorf("round %d: %+v, want 3 quarantined and nothing removed", round, res)
		}
		var title string
		if err := db.SQL().Get(&title, `SELECT title FROM observations WHERE uuid = 'o-q' AND project = 'q'`); err != nil || title != "kept in q" {
			t.Errorf("round %d: q's observation: %q, %v", round, title, err)
		}
		st, err := db.SyncStates(ctx, "c1", "p")
		if err != nil || len(st) != 1 || st[0].Quarantined != 3 || st[0].Pulled != 4 {
			t.Errorf("round %d: state %+v, %v; want 3 quarantined, cursor 4", round, st, err)
		}
	}
	bad, err := db.Quarantine(ctx, "c1", "p", 0, 10)
	if err != nil || len(bad) != 3 || bad[0].Seq != 2 || bad[2].Reason != `key "nonsense"` {
		t.Errorf("quarantine: %+v, %v", bad, err)
	}
	if _, err := db.Unshare(ctx, "p"); err != nil {
		t.Fatal(err)
	}
	if bad, err := db.Quarantine(ctx, "c1", "p", 0, 10); err != nil || len(bad) != 0 {
		t.Errorf("after unshare: %+v, %v", bad, err)
	}
}
