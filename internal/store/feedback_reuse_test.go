package store

import (
	"context"
	"testing"
	"time"

	"github.com/memhq/mem/internal/memory"
)

// An entry's verdict and injections go with it: SQLite reuses the id of
// the newest row once it is deleted, and the next observation or summary
// given that id starts with no verdict and no history of use.
func TestAForgottenEntrysFeedbackGoesWithIt(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	startTest(t, db, "s", "p")
	at := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	add := func(title string) int64 {
		o, err := db.AddObservation(ctx, memory.Observation{SessionID: "s", Type: memory.TypeNote, Title: title})
		if err != nil {
			t.Fatal(err)
		}
		return o.ID
	}
	id := add("the cache is rebuilt at start")
	ref := memory.ObservationRef(id)
	if err := db.AddInjections(ctx, []memory.Injection{{Project: "p", SessionID: "s", Channel: "start", Ref: ref, Tokens: 20, At: at}}); err != nil {
		t.Fatal(err)
	}
	if err := db.MarkEntry(ctx, "p", ref, "wrong", at); err != nil {
		t.Fatal(err)
	}
	if err := db.ForgetObservations(ctx, []int64{id}); err != nil {
		t.Fatal(err)
	}
	if again := add("a new note"); again != id {
		t.Skipf("the id was not reused (%d, then %d): nothing to check", id, again)
	}
	v, err := db.Verdicts(ctx, "p", []string{ref})
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.x.Get(&n, `SELECT count(*) FROM injections WHERE ref = ?`, ref); err != nil {
		t.Fatal(err)
	}
	if len(v) != 0 || n != 0 {
		t.Errorf("the new %s has the forgotten one's verdict %v and %d injections", ref, v, n)
	}
}
