package store

import (
	"context"
	"testing"
	"time"

	"github.com/memhq/mem/internal/memory"
)

// TestFeedback: an injection is used when its entry is fetched at or after
// it (a fetch before it does not count) or marked useful; marked wrong, it
// is irrelevant and not helpful; only injected entries keep fetches; the
// window and the project are honoured, and projects are counted apart.
func TestFeedback(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	t0 := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	in := func(project, channel, ref string, tokens int, at time.Time) memory.Injection {
		return memory.Injection{Project: project, SessionID: "s-" + project, Channel: channel, Ref: ref, Tokens: tokens, At: at}
	}
	if err := db.AddInjections(ctx, []memory.Injection{
		in("p", memory.ChannelStart, "#1", 10, t0),
		in("p", memory.ChannelStart, "#2", 20, t0),
		in("p", memory.ChannelStart, "S1", 40, t0),
		in("p", memory.ChannelPrompt, "#3", 5, t0.Add(time.Hour)),
		in("p", memory.ChannelFile, "#4", 7, t0.Add(-48*time.Hour)), // before the window
		in("q", memory.ChannelStart, "#1", 100, t0),
	}); err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(db.UseEntries(ctx, "p", []string{"#1", "#9"}, t0.Add(time.Minute))) // #9 was never injected
	must(db.UseEntries(ctx, "p", []string{"#3"}, t0.Add(30*time.Minute)))    // before #3's injection
	must(db.MarkEntry(ctx, "p", "S1", memory.VerdictUseful, t0))
	must(db.MarkEntry(ctx, "p", "2", memory.VerdictWrong, t0))
	if err := db.MarkEntry(ctx, "p", "#2", "meh", t0); !memory.IsInvalid(err) {
		t.Errorf("verdict meh: %v, want a validation error", err)
	}
	if err := db.MarkEntry(ctx, "p", "P7", memory.VerdictUseful, t0); !memory.IsInvalid(err) {
		t.Errorf("ref P7: %v, want a validation error", err)
	}

	fb, err := db.Feedback(ctx, "p", t0.Add(-time.Hour))
	must(err)
	want := memory.FeedbackCounts{Injected: 4, Used: 2, Helpful: 2, Wrong: 1, Tokens: 75, UnusedTokens: 25}
	if fb.Total != want {
		t.Errorf("project p: %+v, want %+v", fb.Total, want)
	}
	if len(fb.Channels) != 2 || fb.Channels[0].Channel != memory.ChannelPrompt || fb.Channels[1].Channel != memory.ChannelStart {
		t.Errorf("channels %+v, want prompt and start", fb.Channels)
	}
	var n int
	must(db.x.GetContext(ctx, &n, `SELECT count(*) FROM entry_feedback WHERE ref = '#9'`))
	if n != 0 {
		t.Errorf("a fetch of an entry never injected was kept")
	}
	all, err := db.Feedback(ctx, "", t0.Add(-time.Hour))
	must(err)
	if all.Total.Injected != 5 || all.Total.Tokens != 175 || len(all.Channels) != 2 {
		t.Errorf("every project: %+v, want 5 injected, 175 tokens, 2 channels", all)
	}
	// More entries than one statement takes.
	var many []memory.Injection
	for i := range 250 {
		many = append(many, in("r", memory.ChannelFile, memory.ObservationRef(int64(i+1)), 1, t0))
	}
	must(db.AddInjections(ctx, many))
	if fb, err := db.Feedback(ctx, "r", t0); err != nil || fb.Total.Injected != 250 || fb.Total.Tokens != 250 {
		t.Errorf("250 injections: %+v, %v", fb.Total, err)
	}
	per, err := db.FeedbackPerProject(ctx, t0.Add(-time.Hour))
	must(err)
	if len(per) != 3 || per[0].Project != "p" || per[1].Project != "q" || per[1].Total.Used != 0 || per[0].Total != want {
		t.Errorf("per project: %+v", per)
	}
}
