package triggers_test

import (
	"context"
	"strings"
	"testing"

	"github.com/memhq/mem/internal/memory"
)

// observeIn records o as an observation of session sid (started if new).
func (f *fixture) observeIn(t *testing.T, sid string, o memory.Observation) memory.Observation {
	t.Helper()
	ctx := context.Background()
	if _, _, err := f.db.StartSession(ctx, memory.Session{ID: sid, Project: "p"}); err != nil {
		t.Fatal(err)
	}
	o.SessionID = sid
	a, err := f.db.AddObservation(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	o.ID = a.ID
	return o
}

// An observation of a session whose summary holds its request is given as
// its headline, and the first of the session's with that request: what the
// session was for, not the observation's full text.
func TestPromptGivesTheSessionsRequest(t *testing.T) {
	ctx := context.Background()
	f := setup(t)
	f.eng.Summaries = f.db
	f.observeIn(t, "fix", memory.Observation{Type: memory.TypeChange, Title: "Edited link.c: bpf_link_attach keeps errno",
		Narrative: strings.Repeat("a long narrative of the edit ", 20), FilesModified: []string{"link.c"}})
	f.observeIn(t, "fix", memory.Observation{Type: memory.TypeChange, Title: "Edited link.h: bpf_link_attach errno",
		FilesModified: []string{"link.h"}})
	if _, err := f.db.PutSummary(ctx, memory.Summary{SessionID: "fix", Project: "p",
		Request: "link: keep the errno of bpf_link_attach.", Text: "Request: link: keep the errno", Generator: "extractive"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.eng.OnPrompt(ctx, f.ses, "bpf_link_attach loses errno"); err != nil {
		t.Fatal(err)
	}
	es, err := f.db.PendingEntries(ctx, f.ses.ID)
	if err != nil || len(es) != 2 {
		t.Fatalf("pending %v %v, want two entries", es, err)
	}
	withRequest := 0
	for _, e := range es {
		head, rest, _ := strings.Cut(e.Content, "\n")
		if !strings.HasPrefix(head, e.EntryID+" change ") || strings.Contains(e.Content, "narrative") {
			t.Fatalf("entry %s %q: want the observation's headline, not its text", e.EntryID, e.Content)
		}
		if rest != "" {
			if rest != "request: link: keep the errno of bpf_link_attach." {
				t.Fatalf("entry %s %q: want the session's request after the headline", e.EntryID, e.Content)
			}
			withRequest++
		}
	}
	if withRequest != 1 {
		t.Fatalf("%d entries quote the request, want one: %v", withRequest, es)
	}
}
