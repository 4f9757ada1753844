package mcpserver

import (
	"context"
	"strings"
	"testing"

	"github.com/memhq/mem/internal/recall"
	"github.com/memhq/mem/internal/store"
)

// injectBlock is what `mem inject` prints for req with the default settings.
func injectBlock(t *testing.T, db *store.DB, req recall.Request) string {
	t.Helper()
	res, err := recall.Build(context.Background(), db, req, recall.DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	return res.Text
}

func TestRecentContext(t *testing.T) { eachMode(t, testRecentContext) }

func testRecentContext(t *testing.T, start starter) {
	f := start(t, "")
	var out ContextOutput
	res := call(t, f.cs, "recent_context", map[string]any{})
	structured(t, res, &out)
	want := injectBlock(t, f.db, recall.Request{Project: testProject})
	if out.Text != want || resultText(res) != want {
		t.Errorf("recent_context is not the mem inject block:\n%s\nwant:\n%s", out.Text, want)
	}
	for _, w := range []string{"<memory_context", "Make hooks safe", "#3 discovery"} {
		if !strings.Contains(out.Text, w) {
			t.Errorf("block lacks %q:\n%s", w, out.Text)
		}
	}
	if out.Empty || out.Project != testProject || out.Tokens > out.Budget || out.Budget != recall.DefaultSettings().Budget {
		t.Errorf("result %+v", out)
	}

	structured(t, call(t, f.cs, "recent_context", map[string]any{"budget": 150, "prompt": "fts5"}), &out)
	if out.Budget != 150 || out.Tokens > 150 {
		t.Errorf("budget 150: %+v", out)
	}
	if want := injectBlock(t, f.db, recall.Request{Project: testProject, Budget: 150, Prompt: "fts5"}); out.Text != want {
		t.Errorf("budget 150 block:\n%s\nwant:\n%s", out.Text, want)
	}

	for _, tc := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"negative budget", map[string]any{"budget": -5}, "budget: must be a number of tokens"},
		{"huge budget", map[string]any{"budget": 2_000_000}, "budget: must be a number of tokens"},
		{"budget as text", map[string]any{"budget": "lots"}, "budget"},
		{"unknown field", map[string]any{"mode": "compact"}, "mode"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, f.cs, "recent_context", tc.args)
			if !res.IsError || !strings.Contains(resultText(res), tc.want) {
				t.Errorf("got IsError=%v %q, want a tool error containing %q", res.IsError, resultText(res), tc.want)
			}
		})
	}
}

func TestRecentContextOfEmptyProject(t *testing.T) {
	db, _ := openDB(t)
	srv, err := New(Options{DB: db, Project: "empty/project"})
	if err != nil {
		t.Fatal(err)
	}
	cs := connect(t, srv)
	var out ContextOutput
	res := call(t, cs, "recent_context", nil)
	structured(t, res, &out)
	if !out.Empty || out.Text != "" || !strings.Contains(resultText(res), "No memory yet for project empty/project") {
		t.Errorf("empty project: %+v, text %q", out, resultText(res))
	}
	got, err := readResource(t, cs, "mem://context/auto")
	if err != nil || !strings.Contains(got, "No memory yet") {
		t.Errorf("auto resource of an empty project: %q, %v", got, err)
	}
}

func TestContextResources(t *testing.T) { eachMode(t, testContextResources) }

func testContextResources(t *testing.T, start starter) {
	f := start(t, "")
	got, err := readResource(t, f.cs, "mem://context/auto")
	if err != nil {
		t.Fatal(err)
	}
	if want := injectBlock(t, f.db, recall.Request{Project: testProject}); got != want {
		t.Errorf("auto:\n%s\nwant:\n%s", got, want)
	}

	got, err = readResource(t, f.cs, "mem://context/session/s1")
	if err != nil {
		t.Fatal(err)
	}
	want := injectBlock(t, f.db, recall.Request{Project: testProject, SessionID: "s1", Mode: recall.ModeCompact,
		Budget: recall.DefaultSettings().Budget})
	if got != want || !strings.Contains(got, "<current_session") || !strings.Contains(got, "#1 decision") {
		t.Errorf("session s1:\n%s\nwant:\n%s", got, want)
	}
	// A session of another project gives that project's block.
	if got, err = readResource(t, f.cs, "mem://context/session/other"); err != nil || !strings.Contains(got, `project="other/project"`) {
		t.Errorf("session other: %q, %v", got, err)
	}
	for _, uri := range []string{"mem://context/session/nope", "mem://context/session/", "mem://context/session/a%0Ab"} {
		if got, err := readResource(t, f.cs, uri); err == nil {
			t.Errorf("read %s: got %q, want resource not found", uri, got)
		}
	}
}

func TestListResources(t *testing.T) { eachMode(t, testListResources) }

func testListResources(t *testing.T, start starter) {
	f := start(t, "")
	ctx := context.Background()
	res, err := f.cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Resources) != 1 || res.Resources[0].URI != "mem://context/auto" {
		t.Errorf("resources: %+v", res.Resources)
	}
	tmpl, err := f.cs.ListResourceTemplates(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, r := range tmpl.ResourceTemplates {
		got[r.URITemplate] = true
	}
	for _, u := range []string{"mem://context/session/{id}", "mem://context/file/{+path}"} {
		if !got[u] {
			t.Errorf("template %s not listed: %v", u, got)
		}
	}
}
