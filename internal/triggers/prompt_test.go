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

// A prompt is given one session's observations, and only when that session
// stands out: two sessions that match it equally well give nothing.
func TestPromptGivesOneSessionThatStandsOut(t *testing.T) {
	ctx := context.Background()
	const prompt = "what is the refund webhook retry policy"
	f := setup(t)
	for _, sid := range []string{"a", "b"} {
		f.observeIn(t, sid, memory.Observation{Type: memory.TypeDecision, Title: "Refund webhook retry policy"})
	}
	if _, err := f.eng.OnPrompt(ctx, f.ses, prompt); err != nil {
		t.Fatal(err)
	}
	if got := f.pending(t); got != "" {
		t.Fatalf("two sessions tie, yet the prompt got %s", got)
	}

	f = setup(t)
	best := f.observeIn(t, "a", memory.Observation{Type: memory.TypeDecision, Title: "Refund webhook retry policy",
		Narrative: "The refund webhook retry policy backs off exponentially."})
	again := f.observeIn(t, "a", memory.Observation{Type: memory.TypeChange, Title: "Refund webhook retry policy tuned"})
	other := f.observeIn(t, "b", memory.Observation{Type: memory.TypeNote, Title: "Refund webhook retry notes"})
	if _, err := f.eng.OnPrompt(ctx, f.ses, prompt); err != nil {
		t.Fatal(err)
	}
	got := f.pending(t)
	for _, o := range []memory.Observation{best, again} {
		if !strings.Contains(got, "#"+itoa(o.ID)+"@") {
			t.Errorf("pending %q lacks #%d of the best session", got, o.ID)
		}
	}
	if strings.Contains(got, "#"+itoa(other.ID)+"@") {
		t.Errorf("pending %q: another session's #%d came along", got, other.ID)
	}
}

// A session with a summary is given as its observations' headlines and, once,
// what it was asked, not as its observations' full text.
func TestPromptGivesTheSessionsRequest(t *testing.T) {
	ctx := context.Background()
	f := setup(t)
	f.eng.Summaries = f.db
	o := f.observeIn(t, "fix", memory.Observation{Type: memory.TypeChange, Title: "Edited link.c: bpf_link_attach keeps errno",
		Narrative: strings.Repeat("a long narrative of the edit ", 20), FilesModified: []string{"link.c"}})
	sum, err := f.db.PutSummary(ctx, memory.Summary{SessionID: "fix", Project: "p",
		Request: "link: keep the errno of bpf_link_attach.", Text: "Request: link: keep the errno", Generator: "extractive"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.eng.OnPrompt(ctx, f.ses, "bpf_link_attach loses errno"); err != nil {
		t.Fatal(err)
	}
	es, err := f.db.PendingEntries(ctx, f.ses.ID)
	if err != nil || len(es) != 1 {
		t.Fatalf("pending %v %v, want one entry", es, err)
	}
	c := es[0].Content
	if es[0].EntryID != "#"+itoa(o.ID) || !strings.HasPrefix(c, "#"+itoa(o.ID)+" change ") ||
		!strings.Contains(c, "\nS"+itoa(sum.ID)+" ") || !strings.HasSuffix(c, ": link: keep the errno of bpf_link_attach.") ||
		strings.Contains(c, "narrative") {
		t.Fatalf("entry %s %q: want the observation's headline, then the session's request", es[0].EntryID, c)
	}
}
