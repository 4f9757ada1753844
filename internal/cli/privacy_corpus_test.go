package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memhq/mem/internal/privacy/corpus"
	"github.com/memhq/mem/internal/store"
)

// runIn calls Main in-process with stdin.
func runIn(t *testing.T, env map[string]string, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	app := NewApp(strings.NewReader(stdin), &out, &errb)
	app.Getenv = func(k string) string { return env[k] }
	code := Main(context.Background(), app, args)
	return code, out.String(), errb.String()
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// storedText returns every value stored in the database, table by table.
func storedText(t *testing.T, path string) string {
	t.Helper()
	db, err := store.Open(context.Background(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var tables []string
	if err := db.SQL().Select(&tables, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '%fts%'`); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, table := range tables {
		rows, err := db.SQL().Queryx(`SELECT * FROM "` + table + `"`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			vals, err := rows.SliceScan()
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range vals {
				if bs, ok := v.([]byte); ok {
					v = string(bs)
				}
				fmt.Fprintf(&b, "%v\t", v)
			}
			b.WriteString("\n")
		}
		rows.Close()
	}
	return b.String()
}

// Every secret of the hostile corpus, sent through each way text comes into
// mem, is neither stored nor given back by search or export: the prompt, the
// agent's last message, a tool's edit and a command's output (through the
// hook), mem observe and mem import.
func TestCorpusThroughEveryWayIn(t *testing.T) {
	entries := corpus.Entries()
	oneLine := func(s string) string { return strings.ReplaceAll(s, "\n", " ") }
	hookEvent := func(dir, session, event, fields string) string {
		return `{"session_id":"` + session + `","cwd":` + jsonString(dir) + `,"hook_event_name":"` + event + `"` + fields + `}`
	}
	ways := []struct {
		name string
		put  func(dir string, i int, e corpus.Entry) (stdin string, args []string)
	}{
		{"prompt", func(dir string, i int, e corpus.Entry) (string, []string) {
			return hookEvent(dir, "s1", "UserPromptSubmit", `,"prompt":`+jsonString(fmt.Sprintf("marker%03d: why does this fail?\n%s", i, e.Text))), []string{"hook", "claude"}
		}},
		{"stop message", func(dir string, i int, e corpus.Entry) (string, []string) {
			return hookEvent(dir, fmt.Sprintf("s%d", i), "Stop", `,"last_assistant_message":`+jsonString(fmt.Sprintf("marker%03d: I set it to\n%s", i, e.Text))), []string{"hook", "claude"}
		}},
		{"edit", func(dir string, i int, e corpus.Entry) (string, []string) {
			// The first line that changes holds the secret (its second line
			// when it has several: the first one is kept on both sides).
			first, _, multi := strings.Cut(e.Text, "\n")
			old, nw := fmt.Sprintf("placeholder marker%03d", i), e.Text+fmt.Sprintf(" // marker%03d", i)
			if multi {
				old = first + "\n" + old
			}
			in := map[string]any{"file_path": filepath.Join(dir, fmt.Sprintf("marker%03d.go", i)), "old_string": old, "new_string": nw}
			b, _ := json.Marshal(in)
			return hookEvent(dir, "s1", "PostToolUse", `,"tool_name":"Edit","tool_input":`+string(b)+`,"tool_response":{}`), []string{"hook", "claude"}
		}},
		{"command output", func(dir string, i int, e corpus.Entry) (string, []string) {
			resp, _ := json.Marshal(map[string]any{"stdout": "", "stderr": fmt.Sprintf("error: marker%03d %s\n", i, oneLine(e.Text))})
			return hookEvent(dir, "s1", "PostToolUse", `,"tool_name":"Bash","tool_input":{"command":"make deploy"},"tool_response":`+string(resp)), []string{"hook", "claude"}
		}},
		{"observe", func(dir string, i int, e corpus.Entry) (string, []string) {
			return "", []string{"observe", "--session", "s1", "--type", "note", "--title", fmt.Sprintf("marker%03d %s", i, oneLine(e.Text)),
				"--narrative", e.Text, "--fact", e.Text}
		}},
		{"import", func(dir string, i int, e corpus.Entry) (string, []string) {
			at := `"created_at":"2026-01-02T03:04:05Z"`
			lines := []string{
				fmt.Sprintf(`{"kind":"session","id":"s%d","project":"p","started_at":"2026-01-02T03:04:05Z","last_message":%s}`, i, jsonString(e.Text)),
				fmt.Sprintf(`{"kind":"observation","uuid":"o%d","session_id":"s%d","type":"note","title":%s,"narrative":%s,"facts":[%s],%s}`,
					i, i, jsonString(fmt.Sprintf("marker%03d %s", i, oneLine(e.Text))), jsonString(e.Text), jsonString(e.Text), at),
				fmt.Sprintf(`{"kind":"prompt","uuid":"p%d","session_id":"s%d","prompt_number":1,"text":%s,%s}`, i, i, jsonString(e.Text), at),
			}
			return strings.Join(lines, "\n") + "\n", []string{"import", "-"}
		}},
	}
	for _, way := range ways {
		t.Run(way.name, func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(dir, "mem.db")
			env := map[string]string{"HOME": dir, "MEM_DB": db, "MEM_PROJECT": "p"}
			for i, e := range entries {
				stdin, args := way.put(dir, i, e)
				if code, _, stderr := runIn(t, env, stdin, args...); code != 0 || args[0] == "hook" && stderr != "" {
					t.Fatalf("%s: mem %s: exit %d: %s", e.Kind, args[0], code, stderr)
				}
			}
			_, export, _ := runIn(t, env, "", "export")
			stored := storedText(t, db)
			for i, e := range entries {
				marker := fmt.Sprintf("marker%03d", i)
				if !strings.Contains(stored, marker) {
					t.Errorf("%s: nothing was stored, the test checks nothing", e.Kind)
				}
				for _, l := range e.Leaks {
					_, found, _ := runIn(t, env, "", "search", "--json", l)
					for where, text := range map[string]string{"the database": stored, "export": export, "search": found} {
						if strings.Contains(text, l) {
							t.Errorf("%s: %q is in %s", e.Kind, l, where)
						}
					}
				}
			}
		})
	}
}
