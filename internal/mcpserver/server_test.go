package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/privacy"
	"github.com/memhq/mem/internal/store"
)

const testProject = "test/project"

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// openDB opens a fresh database in a temporary directory.
func openDB(t testing.TB) (*store.DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mem.db")
	db, err := store.Open(context.Background(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, path
}

// seed stores two sessions of testProject and one of another project.
func seed(t testing.TB, db *store.DB) {
	t.Helper()
	ctx := context.Background()
	for _, s := range []memory.Session{
		{ID: "s1", Project: testProject, Agent: "claude-code", StartedAt: t0},
		{ID: "s2", Project: testProject, Agent: "codex", StartedAt: t0.Add(time.Hour)},
		{ID: "other", Project: "other/project", StartedAt: t0},
	} {
		if _, err := db.EnsureSession(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.AddPrompt(ctx, "s1", "Why do hooks fail with database is locked?", t0.Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	for i, o := range []memory.Observation{
		{SessionID: "s1", Type: "decision", Title: "Use WAL journal mode for concurrent hooks",
			Narrative: "Hooks run in parallel; WAL lets readers proceed while one writer commits.",
			Facts:     []string{"busy_timeout is 5000 ms"}, FilesModified: []string{"internal/store/db.go"}},
		{SessionID: "s1", Type: "problem", Title: "SQLITE_BUSY under deferred transactions",
			Narrative: "Deferred transactions that later write fail with SQLITE_BUSY.", FilesRead: []string{"internal/store/db.go"}},
		{SessionID: "s2", Type: "discovery", Title: "FTS5 rejects raw user text",
			Narrative: "db.go and NOT x are syntax errors in MATCH.", Concepts: []string{"fts5", "search"}},
		{SessionID: "other", Type: "note", Title: "Unrelated project note", FilesRead: []string{"internal/store/db.go"}},
	} {
		o.CreatedAt = t0.Add(time.Duration(i) * time.Minute)
		if _, err := db.AddObservation(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.PutSummary(ctx, memory.Summary{SessionID: "s1", Request: "Make hooks safe under concurrency",
		Completed: "WAL and immediate transactions", Generator: "extractive", CreatedAt: t0.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
}

// connect serves srv over in-memory transports and returns a connected client.
func connect(t testing.TB, srv *Server) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
		cancel()
	})
	return cs
}

func newServer(t testing.TB, db *store.DB, session string) *Server {
	t.Helper()
	srv, err := New(Options{DB: db, Project: testProject, Root: "/repo", Cwd: "/repo", Session: session,
		Version: "test", Now: func() time.Time { return t0.Add(24 * time.Hour) }})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// call calls a tool and fails the test on a protocol error.
func call(t testing.TB, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error: %v", name, err)
	}
	return res
}

// structured decodes a result's structured content into v.
func structured(t testing.TB, res *mcp.CallToolResult, v any) {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %s", resultText(res))
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
}

func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestListTools(t *testing.T) { eachMode(t, testListTools) }

func testListTools(t *testing.T, start starter) {
	cs := start(t, "").cs
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		got[tool.Name] = tool
	}
	for _, name := range toolNames {
		tool, ok := got[name]
		if !ok {
			t.Errorf("tool %s not listed", name)
			continue
		}
		if tool.OutputSchema == nil {
			t.Errorf("tool %s has no output schema", name)
		}
		if tool.Description == "" {
			t.Errorf("tool %s has no description", name)
		}
	}
	if len(got) != len(toolNames) {
		t.Errorf("listed %d tools, want %d", len(got), len(toolNames))
	}
	if d := got["get_observations"].Description; !strings.Contains(d, "LAST step") {
		t.Errorf("get_observations description does not say it is the last step: %q", d)
	}
	if d := got["save_observation"].Description; !strings.Contains(d, "Save when") {
		t.Errorf("save_observation description does not say when to save: %q", d)
	}
}

func TestGetObservations(t *testing.T) { eachMode(t, testGetObservations) }

func testGetObservations(t *testing.T, start starter) {
	cs := start(t, "").cs

	var out GetOutput
	structured(t, call(t, cs, "get_observations", map[string]any{"ids": []int{3, 1}}), &out)
	if len(out.Observations) != 2 || out.Observations[0].ID != 3 || out.Observations[1].ID != 1 {
		t.Fatalf("got %+v, want observations 3 and 1 in that order", out.Observations)
	}
	if o := out.Observations[1]; o.Narrative == "" || len(o.Facts) != 1 || o.SessionID != "s1" {
		t.Errorf("record is not full: %+v", o)
	}

	for _, tc := range []struct {
		name string
		args any
		want string
	}{
		{"unknown id", map[string]any{"ids": []int{1, 999}}, "#999"},
		{"no ids", map[string]any{"ids": []int{}}, "ids: must be between 1 and 100"},
		{"missing ids", map[string]any{}, "ids"},
		{"zero id", map[string]any{"ids": []int{0}}, "ids: must be positive"},
		{"string ids", map[string]any{"ids": "1,2"}, "ids"},
		{"too many", map[string]any{"ids": make([]int, 101)}, "between 1 and 100"},
		{"unknown argument", map[string]any{"ids": []int{1}, "full": true}, "full"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, cs, "get_observations", tc.args)
			if !res.IsError || !strings.Contains(resultText(res), tc.want) {
				t.Errorf("got IsError=%v %q, want a tool error containing %q", res.IsError, resultText(res), tc.want)
			}
		})
	}
}

func TestSaveObservation(t *testing.T) { eachMode(t, testSaveObservation) }

func testSaveObservation(t *testing.T, start starter) {
	ctx := context.Background()
	f := start(t, "")
	db, cs := f.db, f.cs

	args := map[string]any{"type": "decision", "title": "Keep the MCP server on stdio",
		"narrative": "Editors start it; token sk-ant-abcdefghijklmnopqrstuvwxyz0123 must not be stored <private>secret</private>",
		"facts":     []string{"stdout carries only the protocol"}, "files_modified": []string{"internal/cli/mcp.go"}}
	var first SaveOutput
	res := call(t, cs, "save_observation", args)
	structured(t, res, &first)
	if first.ID == 0 || first.Duplicate || !strings.HasPrefix(first.Session, "mcp-") || first.Project != testProject {
		t.Fatalf("first save: %+v", first)
	}
	if !strings.Contains(resultText(res), "#") {
		t.Errorf("text content %q does not give the id", resultText(res))
	}
	var again SaveOutput
	structured(t, call(t, cs, "save_observation", args), &again)
	if again.ID != first.ID || !again.Duplicate {
		t.Errorf("second save of the same content: %+v, want duplicate of %d", again, first.ID)
	}
	obs, err := db.Observations(ctx, []int64{first.ID})
	if err != nil {
		t.Fatal(err)
	}
	if n := obs[0].Narrative; strings.Contains(n, "sk-ant-") || strings.Contains(n, "secret") {
		t.Errorf("narrative was not privacy-filtered: %q", n)
	}
	if p := obs[0].Provenance; p.Origin != memory.OriginSave || p.Event != "save_observation" || p.Agent == "" {
		t.Errorf("provenance of the agent's save: %+v, want agent-save save_observation and the client's name", p)
	}
	s, err := db.Session(ctx, first.Session)
	if err != nil {
		t.Fatal(err)
	}
	if s.Project != testProject || s.Agent != "mcp" {
		t.Errorf("per-process session: %+v", s)
	}

	before, _ := db.CountObservations(ctx, "")
	for _, tc := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"bad type", map[string]any{"type": "idea", "title": "x"}, "type: must be one of decision"},
		{"no title", map[string]any{"type": "note"}, "title"},
		{"blank title", map[string]any{"type": "note", "title": "  "}, "title: must be non-empty"},
		{"private title", map[string]any{"type": "note", "title": "<private>all of it</private>"}, "not entirely private"},
		{"long title", map[string]any{"type": "note", "title": strings.Repeat("x", 501)}, "at most 500"},
		{"facts not a list", map[string]any{"type": "note", "title": "x", "facts": "one"}, "facts"},
		{"unknown field", map[string]any{"type": "note", "title": "x", "colour": "red"}, "colour"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, cs, "save_observation", tc.args)
			if !res.IsError || !strings.Contains(resultText(res), tc.want) {
				t.Errorf("got IsError=%v %q, want a tool error containing %q", res.IsError, resultText(res), tc.want)
			}
		})
	}
	if after, _ := db.CountObservations(ctx, ""); after != before {
		t.Errorf("bad input stored observations: %d -> %d", before, after)
	}
}

func TestSaveObservationInGivenSession(t *testing.T) { eachMode(t, testSaveObservationInGivenSession) }

func testSaveObservationInGivenSession(t *testing.T, start starter) {
	f := start(t, "s2")
	cs := f.cs
	var out SaveOutput
	structured(t, call(t, cs, "save_observation", map[string]any{"type": "bugfix", "title": "Fix the lock retry"}), &out)
	if out.Session != "s2" || out.Project != testProject {
		t.Errorf("saved in %+v, want session s2", out)
	}
	// A session that does not exist yet is created in the server's project.
	f = start(t, "fresh-session")
	db, cs := f.db, f.cs
	structured(t, call(t, cs, "save_observation", map[string]any{"type": "note", "title": "First note"}), &out)
	if s, err := db.Session(context.Background(), "fresh-session"); err != nil || s.Project != testProject {
		t.Errorf("fresh session: %+v, %v", s, err)
	}
}

func TestSaveObservationPersonal(t *testing.T) { eachMode(t, testSaveObservationPersonal) }

// A preference saved with scope personal goes to the personal tier, not to
// the session's project; an unknown scope is refused.
func testSaveObservationPersonal(t *testing.T, start starter) {
	f := start(t, "s3")
	var out SaveOutput
	structured(t, call(t, f.cs, "save_observation", map[string]any{"type": "pattern", "title": "I prefer small commits", "scope": "personal"}), &out)
	if out.Project != memory.PersonalProject || out.Session != "personal" {
		t.Errorf("saved in %+v, want the personal tier", out)
	}
	res := call(t, f.cs, "save_observation", map[string]any{"type": "note", "title": "x", "scope": "global"})
	if !res.IsError {
		t.Errorf("scope global accepted: %+v", res)
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	db, _ := openDB(t)
	for _, o := range []Options{{Project: testProject}, {DB: db}, {DB: db, Project: testProject, Session: strings.Repeat("a", 201)}, {DB: db, Project: testProject, Session: " "}, {DB: db, Project: testProject, Session: "a\nb"}} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v) succeeded", o)
		}
	}
}

func readResource(t testing.TB, cs *mcp.ClientSession, uri string) (string, error) {
	t.Helper()
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, c := range res.Contents {
		b.WriteString(c.Text)
	}
	return b.String(), nil
}

func TestFileResource(t *testing.T) { eachMode(t, testFileResource) }

func testFileResource(t *testing.T, start starter) {
	f := start(t, "")
	cs := f.cs
	for _, tc := range []struct {
		uri      string
		want     []string
		wantNot  []string
		notFound bool
	}{
		{uri: "mem://context/file/internal/store/db.go",
			want:    []string{"#2 2026-03-01 problem: SQLITE_BUSY", "(read)", "#1 2026-03-01 decision: Use WAL", "(modified)", "busy_timeout is 5000 ms", "ids [2, 1]"},
			wantNot: []string{"Unrelated"}},
		{uri: "mem://context/file/" + f.root + "/internal/store/db.go", want: []string{"#1 ", "#2 "}},
		{uri: "mem://context/file/internal%2Fstore%2Fdb.go", want: []string{"#1 ", "#2 "}},
		{uri: "mem://context/file/README.md", want: []string{"no observations about README.md"}},
		{uri: "mem://context/file/", notFound: true},
		{uri: "mem://context/nothing", notFound: true},
	} {
		t.Run(tc.uri, func(t *testing.T) {
			got, err := readResource(t, cs, tc.uri)
			if tc.notFound {
				if err == nil {
					t.Fatalf("read %s: got %q, want an error", tc.uri, got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("missing %q in:\n%s", w, got)
				}
			}
			for _, w := range tc.wantNot {
				if strings.Contains(got, w) {
					t.Errorf("unexpected %q in:\n%s", w, got)
				}
			}
		})
	}
}

func TestPanickingToolIsAToolError(t *testing.T) {
	db, _ := openDB(t)
	srv := newServer(t, db, "")
	addTool(srv, &mcp.Tool{Name: "boom", Description: "panics"}, func(context.Context, *mcp.CallToolRequest, GetInput) (*mcp.CallToolResult, GetOutput, error) {
		panic("boom")
	})
	cs := connect(t, srv)
	res := call(t, cs, "boom", map[string]any{"ids": []int{1}})
	if !res.IsError || !strings.Contains(resultText(res), "boom failed: internal error") {
		t.Errorf("got IsError=%v %q", res.IsError, resultText(res))
	}
	// The server still answers.
	var out SaveOutput
	structured(t, call(t, cs, "save_observation", map[string]any{"type": "note", "title": "still alive"}), &out)
}

func TestSecretSessionIDs(t *testing.T) {
	const tok = "ses-ghp_abcdefghijklmnopqrstuvwxyz0123456789AB"
	for name, secret := range map[string]string{
		"short": tok,
		// Longer than a stored id may be: the hooks store it under its
		// filtered key.
		"long": tok + "-" + strings.Repeat("0123456789abcdef", 12),
	} {
		t.Run(name, func(t *testing.T) {
			eachMode(t, func(t *testing.T, start starter) { testSecretSessionIDs(t, start, secret) })
		})
	}
}

// A session id that holds a secret is stored filtered (as the hooks and the
// CLI store it); the tools that take a session id find it by the id the
// agent knows, and never store or show the secret.
func testSecretSessionIDs(t *testing.T, start starter, secret string) {
	stored := privacy.SessionKey(secret)
	if stored == secret {
		t.Fatalf("the privacy filter keeps %q: pick another secret", secret)
	}
	f := start(t, secret)
	ctx := context.Background()
	if _, err := f.db.EnsureSession(ctx, memory.Session{ID: stored, Project: testProject, StartedAt: t0}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.db.AddObservation(ctx, memory.Observation{SessionID: stored, Type: "note",
		Title: "Widget cache is warmed at start", CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"search", map[string]any{"session": secret}},
		{"search", map[string]any{"query": "widget cache", "session": secret}},
		{"timeline", map[string]any{"session": secret}},
	} {
		res := call(t, f.cs, tc.tool, tc.args)
		var out struct {
			Results, Entries []IndexEntry
			Session          string
		}
		structured(t, res, &out)
		got := append(out.Results, out.Entries...)
		if len(got) != 1 || got[0].Title != "Widget cache is warmed at start" || got[0].Session != stored {
			t.Errorf("%s %v: %+v, want the one observation of session %s", tc.tool, tc.args, got, stored)
		}
		if strings.Contains(resultText(res), secret) || out.Session == secret {
			t.Errorf("%s %v shows the secret: %s", tc.tool, tc.args, resultText(res))
		}
	}
	var saved SaveOutput
	structured(t, call(t, f.cs, "save_observation", map[string]any{"type": "note", "title": "Saved by the agent"}), &saved)
	if saved.Session != stored {
		t.Errorf("saved in session %q, want %q", saved.Session, stored)
	}
	if _, err := f.db.Session(ctx, secret); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("a session stored under the secret id: %v", err)
	}
}

// An id the hooks refuse is refused by the tools too, naming the field and
// quoting no more than its key.
func TestRefusedSessionIDs(t *testing.T) {
	db, _ := openDB(t)
	cs := connect(t, newServer(t, db, ""))
	long := "ses-" + strings.Repeat("0123456789abcdef", 13)
	for _, tool := range []string{"search", "timeline"} {
		res := call(t, cs, tool, map[string]any{"session": long})
		if !res.IsError || !strings.Contains(resultText(res), "session: must be a session id of at most 200 characters") {
			t.Errorf("%s refused nothing: IsError=%v %q", tool, res.IsError, resultText(res))
		}
	}
	if _, err := New(Options{DB: db, Project: testProject, Session: long}); err == nil || !strings.HasPrefix(err.Error(), "--session: must be") {
		t.Errorf("New with a session id of %d bytes: %v", len(long), err)
	}
}
