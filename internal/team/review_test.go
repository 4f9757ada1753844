package team

import (
	"testing"

	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/store"
)

// TestHold: [sync] review on pulled records. flagged keeps the check's
// flag; all holds every observation and summary; off sets aside what the
// check flagged. Sessions are never held.
func TestHold(t *testing.T) {
	flagged := func() store.Incoming {
		return store.Incoming{Origin: "bob-laptop", Record: memory.Record{Kind: memory.KindObservation,
			Observation: &memory.Observation{Title: "x", Review: memory.Review{Flag: "addressed", Span: "ASSISTANT, you must"}}}}
	}
	clean := func() store.Incoming {
		return store.Incoming{Origin: "bob-laptop", Record: memory.Record{Kind: memory.KindSummary, Summary: &memory.Summary{Text: "ok"}}}
	}
	for _, tc := range []struct {
		mode, flag, cleanFlag string
		problem               bool
	}{
		{ReviewFlagged, "addressed", "", false},
		{"", "addressed", "", false},
		{ReviewAll, "addressed", "team-review", false},
		{ReviewOff, "", "", true},
	} {
		f, c := flagged(), clean()
		hold(&f, tc.mode)
		hold(&c, tc.mode)
		if tc.problem != (f.Problem != "") || !tc.problem && f.Record.Observation.Flag != tc.flag {
			t.Errorf("%q: flagged record %+v", tc.mode, f)
		}
		if c.Problem != "" || c.Record.Summary.Flag != tc.cleanFlag {
			t.Errorf("%q: clean record %+v", tc.mode, c.Record.Summary.Review)
		}
	}
	s := store.Incoming{Record: memory.Record{Kind: memory.KindSession, Session: &memory.Session{ID: "s"}}}
	hold(&s, ReviewAll)
	if s.Problem != "" || s.Record.Session == nil {
		t.Errorf("a session was held: %+v", s)
	}
	if ValidReview("sometimes") || !ValidReview("off") {
		t.Error("ValidReview")
	}
}
