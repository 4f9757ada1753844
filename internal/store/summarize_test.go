package store

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/memhq/mem/internal/memory"
)

func TestPendingSessions(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	t0 := time.UnixMilli(1_700_000_000_000)
	obs := func(id, title string, at time.Time) {
		t.Helper()
		if _, err := db.AddObservation(ctx, memory.Observation{SessionID: id, Type: memory.TypeChange, Title: title, CreatedAt: at}); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []string{"ended", "idle", "active", "empty", "done", "stale", "extr"} {
		startTest(t, db, id, "p")
	}
	for _, id := range []string{"ended", "idle", "active", "done", "stale", "extr"} {
		obs(id, "work in "+id, t0.Add(time.Minute))
	}
	for _, id := range []string{"ended", "empty", "done", "stale", "extr"} {
		if _, err := db.EndSession(ctx, id, t0.Add(2*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.TouchSession(ctx, "active", t0.Add(3*time.Hour)); err != nil {
		t.Fatal(err)
	}
	put := func(id, gen string, covers time.Time) {
		t.Helper()
		if _, err := db.PutSummary(ctx, memory.Summary{SessionID: id, Text: "x", Generator: gen, CoversUntil: covers}); err != nil {
			t.Fatal(err)
		}
	}
	put("done", "llm:x", t0.Add(time.Minute))
	put("extr", "extractive", t0.Add(time.Minute))
	put("stale", "extractive", t0.Add(time.Minute))
	obs("stale", "later work", t0.Add(5*time.Minute))

	idleBefore := t0.Add(2 * time.Hour)
	for _, tc := range []struct {
		upgrade bool
		limit   int
		want    []PendingSession
	}{
		{false, 0, []PendingSession{{"idle", PendingIdle}, {"ended", PendingEnded}, {"stale", PendingStale}}},
		{true, 0, []PendingSession{{"idle", PendingIdle}, {"ended", PendingEnded}, {"extr", PendingUpgrade}, {"stale", PendingStale}}},
		{false, 1, []PendingSession{{"idle", PendingIdle}}},
	} {
		got, err := db.PendingSessions(ctx, PendingQuery{IdleBefore: idleBefore, Upgrade: tc.upgrade, Limit: tc.limit})
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(tc.want) {
			t.Fatalf("upgrade=%v limit=%d: got %v, want %v", tc.upgrade, tc.limit, got, tc.want)
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("upgrade=%v limit=%d: got %v, want %v", tc.upgrade, tc.limit, got, tc.want)
			}
		}
	}
}

func TestLease(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	now := time.UnixMilli(1_700_000_000_000)
	ttl := 10 * time.Minute
	steps := []struct {
		holder, replace string
		at              time.Time
		wantHolder      string
	}{
		{"a", "", now, "a"},
		{"b", "", now.Add(time.Minute), "a"},         // held
		{"a", "", now.Add(2 * time.Minute), "a"},     // renewal
		{"b", "a", now.Add(3 * time.Minute), "b"},    // a is dead: replaced
		{"c", "", now.Add(3*time.Minute + ttl), "c"}, // b's lease expired
	}
	for i, s := range steps {
		h, until, err := db.AcquireLease(ctx, "job", s.holder, s.replace, s.at, ttl)
		if err != nil {
			t.Fatal(err)
		}
		if h != s.wantHolder {
			t.Fatalf("step %d: holder %q, want %q", i, h, s.wantHolder)
		}
		if h == s.holder && !until.Equal(s.at.Add(ttl)) {
			t.Fatalf("step %d: until %v, want %v", i, until, s.at.Add(ttl))
		}
	}
	if err := db.ReleaseLease(ctx, "job", "b"); err != nil { // not b's: kept
		t.Fatal(err)
	}
	if h, _, _ := db.AcquireLease(ctx, "job", "d", "", now.Add(4*time.Minute+ttl), ttl); h != "c" {
		t.Fatalf("release by a non-holder freed the lease: holder %q", h)
	}
	if err := db.ReleaseLease(ctx, "job", "c"); err != nil {
		t.Fatal(err)
	}
	if h, _, _ := db.AcquireLease(ctx, "job", "d", "", now.Add(4*time.Minute+ttl), ttl); h != "d" {
		t.Fatalf("released lease not free: holder %q", h)
	}
}

func TestMaintain(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	t0 := time.UnixMilli(1_700_000_000_000)
	startTest(t, db, "old", "p")
	startTest(t, db, "open", "p")
	if _, err := db.EndSession(ctx, "old", t0); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"old", "open", "gone"} {
		if _, err := db.x.Exec(`INSERT INTO pending_context (session_id, source, entry_id, content, created_at)
			VALUES (?, 's', 'e', 'c', ?)`, id, toMillis(t0)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.AddObservation(ctx, memory.Observation{SessionID: "open", Type: memory.TypeNote, Title: "indexed note"}); err != nil {
		t.Fatal(err)
	}
	r, err := db.Maintain(ctx, t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if r.PendingDropped != 2 || r.FTSOptimized != 3 {
		t.Fatalf("report %+v, want 2 pending dropped and 3 indexes optimized", r)
	}
	var left []string
	if err := db.x.Select(&left, `SELECT session_id FROM pending_context`); err != nil {
		t.Fatal(err)
	}
	if len(left) != 1 || left[0] != "open" {
		t.Fatalf("pending context left: %v, want [open]", left)
	}
	if n := ftsCount(t, db, "indexed"); n != 1 {
		t.Fatalf("fts after optimize finds %d, want 1", n)
	}
}

// A session whose summary was forgotten is not summarized again from the
// same activity; an observation or a prompt after the forget makes it
// pending again.
func TestPendingAfterForgottenSummary(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	before := time.Now().Add(-time.Hour)
	for _, id := range []string{"obs-later", "prompt-later", "nothing-later"} {
		startTest(t, db, id, "p")
		if _, err := db.AddObservation(ctx, memory.Observation{SessionID: id, Type: memory.TypeChange, Title: "work in " + id, CreatedAt: before}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.EndSession(ctx, id, before); err != nil {
			t.Fatal(err)
		}
	}
	pending := func() []string {
		t.Helper()
		got, err := db.PendingSessions(ctx, PendingQuery{IdleBefore: time.Now()})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, p := range got {
			ids = append(ids, p.ID+":"+p.Reason)
		}
		return ids
	}
	var sums []int64
	for _, id := range []string{"obs-later", "prompt-later", "nothing-later"} {
		s, err := db.PutSummary(ctx, memory.Summary{SessionID: id, Text: "summary of " + id, CreatedAt: before, CoversUntil: before})
		if err != nil {
			t.Fatal(err)
		}
		sums = append(sums, s.ID)
	}
	if _, err := db.DeleteRecords(ctx, nil, sums); err != nil {
		t.Fatal(err)
	}
	if got := pending(); len(got) != 0 {
		t.Errorf("pending right after the forget: %v, want none", got)
	}
	later := time.Now().Add(time.Second)
	if _, err := db.AddObservation(ctx, memory.Observation{SessionID: "obs-later", Type: memory.TypeChange, Title: "more work", CreatedAt: later}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.AddPrompt(ctx, "prompt-later", "and now the tests", later); err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(pending()), "[obs-later:ended prompt-later:ended]"; got != want {
		t.Errorf("pending after later activity: %s, want %s", got, want)
	}
}

// The maintenance drops what was injected longer than KeepInjections ago,
// and keeps the rest, so the injections table does not grow for ever.
func TestMaintainDropsOldInjections(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	err := db.AddInjections(ctx, []memory.Injection{
		{Project: "p", SessionID: "s", Channel: "start", Ref: "#1", Tokens: 20, At: now.Add(-KeepInjections - time.Hour)},
		{Project: "p", SessionID: "s", Channel: "start", Ref: "#2", Tokens: 20, At: now.Add(-KeepInjections + time.Hour)},
	})
	if err != nil {
		t.Fatal(err)
	}
	r, err := db.Maintain(ctx, now)
	if err != nil {
		t.Fatal(err)
	}
	var refs []string
	if err := db.x.Select(&refs, `SELECT ref FROM injections`); err != nil {
		t.Fatal(err)
	}
	if r.InjectionsDropped != 1 || len(refs) != 1 || refs[0] != "#2" {
		t.Errorf("dropped %d, kept %v; want 1 dropped, #2 kept", r.InjectionsDropped, refs)
	}
}
