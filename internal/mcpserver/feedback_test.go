package mcpserver

import (
	"context"
	"testing"
	"time"

	"github.com/memhq/mem/internal/memory"
)

// TestFetchesCountAsUse: entries a hook injected become used when the agent
// fetches them through the server (get_observations, or a search that
// lists them); an entry fetched but never injected is not recorded.
func TestFetchesCountAsUse(t *testing.T) { eachMode(t, testFetchesCountAsUse) }

func testFetchesCountAsUse(t *testing.T, start starter) {
	f := start(t, "")
	ctx := context.Background()
	at := t0.Add(time.Hour)
	var given []memory.Injection
	for _, ref := range []string{"#1", "#2", "#3"} {
		given = append(given, memory.Injection{Project: testProject, SessionID: "s2", Channel: memory.ChannelStart,
			Ref: ref, Tokens: 10, At: at})
	}
	if err := f.db.AddInjections(ctx, given); err != nil {
		t.Fatal(err)
	}
	used := func() memory.FeedbackCounts {
		t.Helper()
		fb, err := f.db.Feedback(ctx, testProject, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		return fb.Total
	}
	if c := used(); c.Injected != 3 || c.Used != 0 || c.UnusedTokens != 30 {
		t.Fatalf("before any fetch: %+v, want 3 injected, none used, 30 tokens unused", c)
	}
	var out GetOutput
	structured(t, call(t, f.cs, "get_observations", map[string]any{"ids": []int{1}}), &out)
	if c := used(); c.Used != 1 || c.Helpful != 1 || c.UnusedTokens != 20 {
		t.Errorf("after get_observations [1]: %+v, want 1 used, 20 tokens unused", c)
	}
	var sr SearchOutput
	structured(t, call(t, f.cs, "search", map[string]any{"query": "SQLITE_BUSY FTS5"}), &sr)
	listed := map[int64]bool{}
	for _, e := range sr.Results {
		listed[e.ID] = true
	}
	want := 1
	for _, id := range []int64{2, 3} {
		if listed[id] {
			want++
		}
	}
	if want == 1 {
		t.Fatalf("search listed %+v, none of #2 and #3: the test needs a query that finds one", sr.Results)
	}
	if c := used(); c.Used != want {
		t.Errorf("after a search listing %v: %+v, want %d used", listed, c, want)
	}
}
