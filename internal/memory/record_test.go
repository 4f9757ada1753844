package memory

import "testing"

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
