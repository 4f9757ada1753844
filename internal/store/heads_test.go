package store

import (
	"cmp"
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/memhq/mem/internal/memory"
)

// RecentBriefs reads what a block uses of an observation: every field but
// those it leaves out, as the whole record has them.
func TestRecentBriefsKeepWhatABlockReads(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	startTest(t, db, "s1", "p1")
	at := time.UnixMilli(1_700_000_000_000).UTC()
	for _, o := range []memory.Observation{
		{SessionID: "s1", Type: memory.TypeDecision, Title: "Retries come from the config", Subtitle: "refunds",
			Narrative: "long text", Facts: []string{"a fact"}, Concepts: []string{"retry"},
			FilesRead: []string{"a.go"}, FilesModified: []string{"b.go"}, AgentType: "Explore", ToolName: "Edit",
			PromptNumber: 3, CreatedAt: at,
			Provenance: memory.Provenance{Origin: memory.OriginTool, Agent: "claude", Event: "Edit", Untrusted: true},
			Review:     memory.Review{Flag: "instruction", Span: "0:9", Released: true}},
		{SessionID: "s1", Type: memory.TypeNote, Title: "A legacy row", CreatedAt: at.Add(time.Minute)},
	} {
		if _, err := db.AddObservation(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	briefs, err := db.RecentBriefs(ctx, "p1", nil, 10)
	if err != nil || len(briefs) != 2 {
		t.Fatalf("%d briefs, %v", len(briefs), err)
	}
	for _, b := range briefs {
		whole, err := db.Observations(ctx, []int64{b.ID})
		if err != nil {
			t.Fatal(err)
		}
		want := whole[0]
		want.UUID, want.ContentHash, want.PromptNumber, want.Narrative, want.Facts = "", "", 0, "", []string{}
		want.Agent, want.Member, want.Span = "", "", ""
		if !reflect.DeepEqual(b, want) {
			t.Errorf("brief\n%+v\nwant\n%+v", b, want)
		}
	}
}

// SummaryHeads reads a summary as SessionSummaries does but for its
// concepts, files, uuid and counts, and its sections only when it has no
// provenance (the last gate checks those whole).
func TestSummaryHeads(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	sections := memory.Summary{Request: "fix the refund retries", Investigated: "inv", Learned: "learned",
		Completed: "done", NextSteps: "next", Decisions: "dec", Text: "fix the refund retries; done",
		Concepts: []string{"retry"}, Files: []string{"a.go"}}
	legacy, kept := sections, sections
	legacy.SessionID = "legacy"
	kept.SessionID, kept.Provenance, kept.Review = "kept", memory.Provenance{Origin: memory.OriginTool, Agent: "claude", Untrusted: true},
		memory.Review{Flag: "instruction", Span: "1:2"}
	for _, s := range []memory.Summary{legacy, kept} {
		startTest(t, db, s.SessionID, "p1")
		if _, err := db.PutSummary(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	heads, err := db.SummaryHeads(ctx, []string{"legacy", "kept", "none"})
	if err != nil {
		t.Fatal(err)
	}
	whole, err := db.SessionSummaries(ctx, []string{"legacy", "kept", "none"})
	if err != nil || len(whole) != 2 || len(heads) != 2 {
		t.Fatalf("%d heads, %d summaries, %v", len(heads), len(whole), err)
	}
	byID := func(a, b memory.Summary) int { return cmp.Compare(a.ID, b.ID) }
	slices.SortFunc(heads, byID)
	slices.SortFunc(whole, byID)
	for i, want := range whole {
		want.UUID, want.Project, want.Concepts, want.Files, want.TokenCount, want.CoversUntil = "", "", []string{}, []string{}, 0, time.Time{}
		if want.Origin != "" {
			want.Investigated, want.Learned, want.Completed, want.NextSteps, want.Decisions = "", "", "", "", ""
		} else if want.Learned == "" {
			t.Fatal("the legacy summary lost its sections")
		}
		if !reflect.DeepEqual(heads[i], want) {
			t.Errorf("head\n%+v\nwant\n%+v", heads[i], want)
		}
	}
}
