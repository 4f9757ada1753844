package mcpserver

import (
	"strings"
	"testing"
)

func ids(es []IndexEntry) []int64 {
	out := make([]int64, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}

func sameIDs(got []int64, want ...int64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}

func TestSearch(t *testing.T) { eachMode(t, testSearch) }

func testSearch(t *testing.T, start starter) {
	f := start(t, "")
	var out SearchOutput
	res := call(t, f.cs, "search", map[string]any{"query": "WAL journal"})
	structured(t, res, &out)
	if out.Count == 0 || out.Results[0].ID != 1 {
		t.Fatalf("WAL journal: %+v", out)
	}
	if e := out.Results[0]; e.Type != "decision" || e.Date != "2026-03-01 12:00" || e.Session != "s1" || e.Kind != "observation" ||
		!strings.Contains(e.Title, "Use WAL") {
		t.Errorf("index entry %+v", e)
	}
	if txt := resultText(res); !strings.Contains(txt, "#1 2026-03-01 12:00 decision: Use WAL") || !strings.Contains(txt, "get_observations") {
		t.Errorf("text content:\n%s", txt)
	}
	// Claude Code and Codex give the model the structured result, not the
	// text: it carries how to go on too.
	if !strings.HasPrefix(out.Next, "Next: timeline") || !strings.Contains(out.Next, "get_observations") || !strings.Contains(resultText(res), out.Next) {
		t.Errorf("structured next %q; text:\n%s", out.Next, resultText(res))
	}
	var none SearchOutput
	structured(t, call(t, f.cs, "search", map[string]any{"query": "zzqx nothing"}), &none)
	if !strings.Contains(none.Next, "Try other words") {
		t.Errorf("no results: next %q", none.Next)
	}

	for _, tc := range []struct {
		name string
		args map[string]any
		want []int64
		next int
	}{
		{"raw FTS syntax is only text", map[string]any{"query": `db.go NOT x" OR (`}, []int64{3, 2, 1}, 0},
		{"type filter", map[string]any{"types": []string{"problem"}}, []int64{2}, 0},
		{"file filter, this project", map[string]any{"file": "internal/store/db.go"}, []int64{2, 1}, 0},
		{"file filter, all projects", map[string]any{"file": "internal/store/db.go", "all_projects": true}, []int64{4, 2, 1}, 0},
		{"other project", map[string]any{"project": "other/project"}, []int64{4}, 0},
		{"session", map[string]any{"session": "s2"}, []int64{3}, 0},
		{"since", map[string]any{"since": "2026-03-01T12:01:30Z"}, []int64{3}, 0},
		{"until", map[string]any{"until": "2026-03-01T12:00:30Z"}, []int64{1}, 0},
		{"first page", map[string]any{"limit": 1}, []int64{3}, 1},
		{"second page", map[string]any{"limit": 1, "offset": 1}, []int64{2}, 2},
		{"nothing", map[string]any{"query": "kubernetes helm"}, []int64{}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out SearchOutput
			structured(t, call(t, f.cs, "search", tc.args), &out)
			if got := ids(out.Results); !sameIDs(got, tc.want...) || out.Count != len(tc.want) || out.NextOffset != tc.next {
				t.Errorf("got ids %v count %d next %d, want %v next %d", got, out.Count, out.NextOffset, tc.want, tc.next)
			}
		})
	}

	for _, tc := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"bad type", map[string]any{"types": []string{"idea"}}, `types: must be a list of decision`},
		{"bad since", map[string]any{"since": "yesterday"}, `since: must be an RFC 3339 time`},
		{"bad until", map[string]any{"until": "soon"}, `until: must be`},
		{"limit too big", map[string]any{"limit": 101}, "limit: must be a number from 1 to 100"},
		{"negative limit", map[string]any{"limit": -1}, "limit: must be"},
		{"negative offset", map[string]any{"offset": -1}, "offset: must be"},
		{"offset too far", map[string]any{"offset": 5000}, "offset: must be"},
		{"query not text", map[string]any{"query": 5}, "query"},
		{"unknown filter", map[string]any{"kind": "summary"}, "kind"},
		{"project and all projects", map[string]any{"project": "x", "all_projects": true}, "one of them, not both"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, f.cs, "search", tc.args)
			if !res.IsError || !strings.Contains(resultText(res), tc.want) {
				t.Errorf("got IsError=%v %q, want a tool error containing %q", res.IsError, resultText(res), tc.want)
			}
		})
	}
}

func TestTimeline(t *testing.T) { eachMode(t, testTimeline) }

func testTimeline(t *testing.T, start starter) {
	f := start(t, "")
	var out TimelineOutput
	res := call(t, f.cs, "timeline", map[string]any{"id": 2})
	structured(t, res, &out)
	if out.Session != "s1" || out.Anchor != 2 || len(out.Entries) != 3 {
		t.Fatalf("around #2: %+v", out)
	}
	if e := out.Entries[0]; e.Kind != "prompt" || !strings.Contains(e.Title, "database is locked") {
		t.Errorf("first entry %+v, want the session's prompt", e)
	}
	if !out.Entries[2].Anchor || out.Entries[1].Anchor || out.Entries[1].ID != 1 {
		t.Errorf("entries %+v, want #1 then #2 marked as anchor", out.Entries)
	}
	if !strings.Contains(out.Next, "get_observations") || !strings.Contains(out.Next, "[1, 2]") {
		t.Errorf("structured next %q", out.Next)
	}
	if txt := resultText(res); !strings.Contains(txt, "> #2 ") || !strings.Contains(txt, "[1, 2]") {
		t.Errorf("text content:\n%s", txt)
	}

	for _, tc := range []struct {
		name    string
		args    map[string]any
		session string
		anchor  int64
		n       int
	}{
		{"no window", map[string]any{"id": 1, "before": 0, "after": 0}, "s1", 1, 1},
		{"after only", map[string]any{"id": 1, "before": 0}, "s1", 1, 2},
		{"session from its start", map[string]any{"session": "s1"}, "s1", 0, 3},
		{"session, first two", map[string]any{"session": "s1", "after": 2}, "s1", 0, 2},
		{"session, none", map[string]any{"session": "s1", "after": 0}, "s1", 0, 0},
		{"query", map[string]any{"query": "FTS5 raw user text"}, "s2", 3, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out TimelineOutput
			structured(t, call(t, f.cs, "timeline", tc.args), &out)
			if out.Session != tc.session || out.Anchor != tc.anchor || len(out.Entries) != tc.n {
				t.Errorf("got %+v, want session %s anchor %d and %d entries", out, tc.session, tc.anchor, tc.n)
			}
		})
	}

	for _, tc := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"no anchor", map[string]any{}, "id, session, query: must be exactly one of them"},
		{"two anchors", map[string]any{"id": 1, "session": "s1"}, "exactly one"},
		{"unknown id", map[string]any{"id": 999}, "#999: not found"},
		{"negative id", map[string]any{"id": -3}, "id: must be"},
		{"unknown session", map[string]any{"session": "nope"}, "nope"},
		{"no match", map[string]any{"query": "kubernetes helm"}, "no observation of project test/project matches"},
		{"before too big", map[string]any{"id": 1, "before": 51}, "before: must be a number from 0 to 50"},
		{"negative after", map[string]any{"id": 1, "after": -1}, "after: must be"},
		{"id as text", map[string]any{"id": "#1"}, "id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, f.cs, "timeline", tc.args)
			if !res.IsError || !strings.Contains(resultText(res), tc.want) {
				t.Errorf("got IsError=%v %q, want a tool error containing %q", res.IsError, resultText(res), tc.want)
			}
		})
	}
}
