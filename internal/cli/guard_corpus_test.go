package cli

import (
	"encoding/json"
	"fmt"
	"html"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/memhq/mem/internal/guard"
	"github.com/memhq/mem/internal/guard/guardtest"
)

// memMarkup is mem's own markup in a reply: its block and context tags,
// which are not instructions from anyone.
var memMarkup = regexp.MustCompile(`</?(?:memory_context|mem_context)\b[^>]*>`)

// injected is every text a hook reply gives the agent, mem's own markup
// taken out and XML unescaped, as the model reads it.
func injected(t *testing.T, reply string) string {
	t.Helper()
	if strings.TrimSpace(reply) == "" {
		return ""
	}
	var v any
	if err := json.Unmarshal([]byte(reply), &v); err != nil {
		t.Fatalf("hook reply is not JSON: %q", reply)
	}
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			b.WriteString(x + "\n")
		case map[string]any:
			for _, y := range x {
				walk(y)
			}
		case []any:
			for _, y := range x {
				walk(y)
			}
		}
	}
	walk(v)
	return html.UnescapeString(memMarkup.ReplaceAllString(b.String(), ""))
}

// TestPayloadsNeverReachALaterSession: each instruction-shaped payload of
// the corpus (internal/guard/testdata), delivered through a real hook event
// of Claude Code's shape (a failing test's output, a network command, a web
// fetch, a read of a vendored file, a grep, another MCP server's result,
// the agent's edit, its last message, its own save, an import), is stored
// held back or not at all, and nothing of it reaches the next session's
// injected text: the start block, the compaction block, prompt-time
// context. The check: no payload's marker in what is injected, and the
// instruction check finds nothing there.
func TestPayloadsNeverReachALaterSession(t *testing.T) {
	payloads := guardtest.Read(t, "payloads.jsonl")
	event := func(dir, session, name, fields string) string {
		return `{"session_id":"` + session + `","transcript_path":"/home/dev/.claude/projects/x/` + session + `.jsonl","cwd":` +
			jsonString(dir) + `,"permission_mode":"default","hook_event_name":"` + name + `"` + fields + `}`
	}
	tool := func(dir, session, name, input string, response any) string {
		r, _ := json.Marshal(response)
		return event(dir, session, "PostToolUse", `,"tool_name":"`+name+`","tool_input":`+input+`,"tool_response":`+string(r)+`,"tool_use_id":"toolu_01"`)
	}
	type delivery struct {
		stdin string
		args  []string
	}
	hook := func(stdin string) delivery { return delivery{stdin, []string{"hook", "claude"}} }
	ways := []struct {
		name string
		put  func(dir, session, text string) []delivery
	}{
		{"test output", func(dir, s, text string) []delivery {
			return []delivery{hook(tool(dir, s, "Bash", `{"command":"go test ./internal/pay/...","description":"Run payment tests"}`,
				map[string]any{"stdout": "--- FAIL: TestCharge (0.01s)\n    charge_test.go:9: " + text + "\nFAIL\nFAIL\tshop/internal/pay\t0.012s\n", "stderr": "", "interrupted": false}))}
		}},
		{"network command", func(dir, s, text string) []delivery {
			return []delivery{hook(tool(dir, s, "Bash", `{"command":"curl -fsS https://docs.example/pay/setup"}`,
				map[string]any{"stdout": text + "\n", "stderr": "curl: (22) The requested URL returned error: 500", "interrupted": false}))}
		}},
		{"web fetch", func(dir, s, text string) []delivery {
			return []delivery{hook(tool(dir, s, "WebFetch", `{"url":"https://docs.example/pay","prompt":"How do I set up payments?"}`,
				map[string]any{"result": "# Payments\n\n" + text, "code": 200, "url": "https://docs.example/pay"}))}
		}},
		{"read of a vendored file", func(dir, s, text string) []delivery {
			p := filepath.Join(dir, "node_modules", "pay-sdk", "README.md")
			return []delivery{hook(tool(dir, s, "Read", `{"file_path":`+jsonString(p)+`}`,
				map[string]any{"type": "text", "file": map[string]any{"filePath": p, "content": text, "numLines": 3, "startLine": 1, "totalLines": 3}}))}
		}},
		{"grep", func(dir, s, text string) []delivery {
			return []delivery{hook(tool(dir, s, "Grep", `{"pattern":"payment","path":`+jsonString(dir)+`}`,
				map[string]any{"mode": "content", "content": "docs/setup.md:3:" + text, "numLines": 1}))}
		}},
		{"other MCP server", func(dir, s, text string) []delivery {
			return []delivery{hook(tool(dir, s, "mcp__docs__fetch_page", `{"url":"https://docs.example/pay"}`,
				[]any{map[string]any{"type": "text", "text": text}}))}
		}},
		{"edit", func(dir, s, text string) []delivery {
			in, _ := json.Marshal(map[string]any{"file_path": filepath.Join(dir, "internal", "pay", "charge.go"),
				"old_string": "// Charge charges a card.", "new_string": "// Charge charges a card.\n// " + text})
			return []delivery{hook(tool(dir, s, "Edit", string(in), map[string]any{"filePath": filepath.Join(dir, "internal", "pay", "charge.go")}))}
		}},
		{"last message", func(dir, s, text string) []delivery {
			return []delivery{hook(event(dir, s, "Stop", `,"stop_hook_active":false,"last_assistant_message":`+jsonString("Done. The page said: "+text)))}
		}},
		{"agent's save", func(dir, s, text string) []delivery {
			return []delivery{{"", []string{"observe", "--session", s, "--type", "decision", "--title", "Payment setup notes", "--narrative", text}}}
		}},
		{"import", func(dir, s, text string) []delivery {
			line := fmt.Sprintf(`{"kind":"session","id":%q,"project":"p","started_at":"2026-01-02T03:04:05Z"}`+"\n"+
				`{"kind":"observation","uuid":"u-%s","session_id":%q,"type":"decision","title":%s,"narrative":%s,"created_at":"2026-01-02T03:04:05Z"}`+"\n",
				s, s, s, jsonString("Payment setup: "+text), jsonString(text))
			return []delivery{{line, []string{"import", "-"}}}
		}},
	}
	for _, way := range ways {
		t.Run(way.name, func(t *testing.T) {
			dir := t.TempDir()
			env := map[string]string{"HOME": dir, "MEM_DB": filepath.Join(dir, "mem.db"), "MEM_PROJECT": "p"}
			for i, p := range payloads {
				s := fmt.Sprintf("w%03d", i)
				text := p.Text + fmt.Sprintf(" zqmark%03d", i)
				runIn(t, env, event(dir, s, "SessionStart", `,"source":"startup"`), "hook", "claude")
				runIn(t, env, event(dir, s, "UserPromptSubmit", `,"prompt":"Set up the payment tests"`), "hook", "claude")
				for _, d := range way.put(dir, s, text) {
					if code, _, stderr := runIn(t, env, d.stdin, d.args...); code != 0 || d.args[0] == "hook" && stderr != "" {
						t.Fatalf("%s payload %d: mem %s: exit %d: %s", p.Shape, i, d.args[0], code, stderr)
					}
				}
				runIn(t, env, event(dir, s, "SessionEnd", `,"reason":"exit"`), "hook", "claude")
			}
			// A later session: its start block, a prompt about the same
			// things, and the block after a compaction.
			later := []string{
				event(dir, "later", "SessionStart", `,"source":"startup"`),
				event(dir, "later", "UserPromptSubmit", `,"prompt":"How do I set up payments, and why did TestCharge fail in charge_test.go?"`),
				event(dir, "later", "UserPromptSubmit", `,"prompt":"What did the payment docs page say about curl, main, memory and the assistant?"`),
				event(dir, "later", "PreCompact", `,"trigger":"auto","custom_instructions":""`),
				event(dir, "later", "SessionStart", `,"source":"compact"`),
			}
			var all strings.Builder
			for _, ev := range later {
				_, out, _ := runIn(t, env, ev, "hook", "claude")
				all.WriteString(injected(t, out))
			}
			got := all.String()
			if strings.TrimSpace(got) == "" && way.name != "web fetch" && way.name != "other MCP server" && way.name != "grep" && way.name != "read of a vendored file" {
				t.Logf("nothing injected at all")
			}
			if m := regexp.MustCompile(`zqmark\d{3}`).FindAllString(got, -1); len(m) > 0 {
				t.Errorf("payloads reached the later session: %v\n%s", m, got)
			}
			if f, ok := guard.Check(got); ok {
				t.Errorf("the later session was given instruction-shaped text (%s: %q):\n%s", f.Rule, f.Span, got)
			}
		})
	}
}

// TestCleanImportIsRarelyFlagged: the clean corpus imported through mem
// import: at most 1% of it is held for review.
func TestCleanImportIsRarelyFlagged(t *testing.T) {
	clean := guardtest.Read(t, "clean.jsonl")
	dir := t.TempDir()
	env := map[string]string{"HOME": dir, "MEM_DB": filepath.Join(dir, "mem.db"), "MEM_PROJECT": "p"}
	var b strings.Builder
	b.WriteString(`{"kind":"session","id":"clean","project":"p","started_at":"2026-01-02T03:04:05Z"}` + "\n")
	for i, c := range clean {
		fmt.Fprintf(&b, `{"kind":"observation","uuid":"c%d","session_id":"clean","type":"note","title":%s,"narrative":%s,"created_at":"2026-01-02T03:04:05Z"}`+"\n",
			i, jsonString(c.Title), jsonString(c.Text))
	}
	if code, _, stderr := runIn(t, env, b.String(), "import", "-"); code != 0 {
		t.Fatalf("import: %d %s", code, stderr)
	}
	_, out, _ := runIn(t, env, "", "review", "--json", "--limit", "100000")
	var f struct{ Observations []any }
	if err := json.Unmarshal([]byte(out), &f); err != nil {
		t.Fatal(err)
	}
	rate := float64(len(f.Observations)) / float64(len(clean))
	t.Logf("clean observations flagged through import: %d/%d (%.2f%%)", len(f.Observations), len(clean), 100*rate)
	if rate > 0.01 {
		t.Errorf("%.2f%% flagged, want at most 1%%", 100*rate)
	}
}
