package memory

import (
	"strings"
	"testing"
)

func TestRecordKeyProjectSession(t *testing.T) {
	tests := []struct {
		name                  string
		rec                   Record
		key, project, session string
	}{
		{"session", Record{Kind: KindSession, Session: &Session{ID: "s1", Project: "p"}}, "session:s1", "p", "s1"},
		{"observation", Record{Kind: KindObservation, Observation: &Observation{UUID: "u1", SessionID: "s1", Project: "p"}},
			"observation:u1", "p", "s1"},
		{"summary keyed by its session", Record{Kind: KindSummary, Summary: &Summary{UUID: "u2", SessionID: "s1", Project: "p"}},
			"summary:s1", "p", "s1"},
		{"prompt has no key", Record{Kind: KindPrompt, Prompt: &Prompt{UUID: "u3", SessionID: "s1", Project: "p"}}, "", "p", "s1"},
		{"kind without its record", Record{Kind: KindSession, Observation: &Observation{UUID: "u1"}}, "", "", ""},
		{"unknown kind", Record{Kind: "note"}, "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.rec.Key(); got != tt.key {
				t.Errorf("Key() = %q, want %q", got, tt.key)
			}
			if got := tt.rec.Project(); got != tt.project {
				t.Errorf("Project() = %q, want %q", got, tt.project)
			}
			if got := tt.rec.SessionID(); got != tt.session {
				t.Errorf("SessionID() = %q, want %q", got, tt.session)
			}
		})
	}
}

func TestTeamSessionID(t *testing.T) {
	long := strings.Repeat("s", MaxSessionIDLen-5)
	named := TeamSessionID("notes", "github.com/acme/alpha")
	if named == "notes" || !strings.HasPrefix(named, "notes@") || len(named) != len("notes@")+8 {
		t.Fatalf("TeamSessionID(notes) = %q, want notes@ and 8 hex digits", named)
	}
	if other := TeamSessionID("notes", "github.com/acme/beta"); other == named || !strings.HasPrefix(other, "notes@") {
		t.Errorf("TeamSessionID(notes) in another project = %q, want a name of its own", other)
	}
	tests := []struct {
		name, id, project, want string
	}{
		{"a name stays itself", named, "github.com/acme/alpha", named},
		{"too long to name: the plain id", long, "p", long},
		{"empty stays empty", "", "p", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := TeamSessionID(tt.id, tt.project); got != tt.want {
				t.Errorf("TeamSessionID = %q, want %q", got, tt.want)
			}
		})
	}
	if plain := PlainSessionID(named, "github.com/acme/alpha"); plain != "notes" {
		t.Errorf("PlainSessionID(%q) = %q, want notes", named, plain)
	}
	if plain := PlainSessionID("notes", "github.com/acme/alpha"); plain != "notes" {
		t.Errorf("PlainSessionID of a plain id = %q, want it as it is", plain)
	}
	for key, want := range map[string]string{
		"session:notes":     "session:" + named,
		"summary:notes":     "summary:" + named,
		"observation:notes": "observation:notes",
	} {
		if got := TeamKey(key, "github.com/acme/alpha"); got != want {
			t.Errorf("TeamKey(%s) = %q, want %q", key, got, want)
		}
	}
	rec := Record{Kind: KindSession, Session: &Session{ID: "sub", ParentID: "notes", Project: "github.com/acme/alpha"}}
	got := rec.WithSessionIDs(func(id string) string { return TeamSessionID(id, "github.com/acme/alpha") })
	if got.Session.ParentID != named || rec.Session.ParentID != "notes" {
		t.Errorf("WithSessionIDs: parent %q (the original's now %q), want %q and the original untouched",
			got.Session.ParentID, rec.Session.ParentID, named)
	}
}

func TestPlainKey(t *testing.T) {
	named := TeamSessionID("notes", "p")
	for key, want := range map[string]string{
		"session:" + named:     "session:notes",
		"summary:" + named:     "summary:notes",
		"session:notes":        "session:notes",
		"observation:" + named: "observation:" + named,
	} {
		if got := PlainKey(key, "p"); got != want {
			t.Errorf("PlainKey(%s) = %q, want %q", key, got, want)
		}
	}
}
