package store

import (
	"cmp"
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
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
	briefs, err := db.RecentBriefs(ctx, "p1", nil, 10, nil)
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

// RecentBriefs after an observation reads on from it in the order it reads
// (newest first, the higher id first among equals), with or without types.
func TestRecentBriefsOlder(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	startTest(t, db, "s1", "p1")
	at := time.UnixMilli(1_700_000_000_000).UTC()
	var all []memory.Observation
	for i := range 6 {
		typ := memory.TypeNote
		if i%2 == 0 {
			typ = memory.TypeDecision
		}
		// Two to a minute: the id orders the equals.
		a, err := db.AddObservation(ctx, memory.Observation{SessionID: "s1", Type: typ, Title: fmt.Sprintf("obs %d", i),
			CreatedAt: at.Add(time.Duration(i/2) * time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, memory.Observation{ID: a.ID, CreatedAt: at.Add(time.Duration(i/2) * time.Minute)})
	}
	titles := func(l []memory.Observation) string {
		var s []string
		for _, o := range l {
			s = append(s, o.Title)
		}
		return strings.Join(s, ",")
	}
	for _, c := range []struct {
		types []memory.Type
		older int
		want  string
	}{
		{nil, 5, "obs 4,obs 3,obs 2,obs 1,obs 0"},
		{nil, 4, "obs 3,obs 2,obs 1,obs 0"},
		{nil, 3, "obs 2,obs 1,obs 0"},
		{[]memory.Type{memory.TypeDecision}, 4, "obs 2,obs 0"},
		{[]memory.Type{memory.TypeDecision}, 3, "obs 2,obs 0"},
		{nil, 0, ""},
	} {
		got, err := db.RecentBriefs(ctx, "p1", c.types, 10, &all[c.older])
		if err != nil {
			t.Fatal(err)
		}
		if titles(got) != c.want {
			t.Errorf("after obs %d, types %v: %q, want %q", c.older, c.types, titles(got), c.want)
		}
	}
}

func TestLatestPrompt(t *testing.T) {
	ctx := context.Background()
	db := openTest(t)
	startTest(t, db, "s1", "p1")
	if _, ok, err := db.LatestPrompt(ctx, "s1"); ok || err != nil {
		t.Fatalf("no prompt yet: %v %v", ok, err)
	}
	for _, text := range []string{"first", "second"} {
		if _, err := db.AddPrompt(ctx, "s1", text, time.Time{}); err != nil {
			t.Fatal(err)
		}
	}
	if p, ok, err := db.LatestPrompt(ctx, "s1"); !ok || err != nil || p.Text != "second" || p.PromptNumber != 2 {
		t.Fatalf("latest %+v %v %v, want the second", p, ok, err)
	}
}
