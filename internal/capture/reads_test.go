package capture

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/memhq/mem/internal/memory"
)

// recordedCall reads a tool call recorded from a real agent by the e2e
// harness (internal/e2e/testdata/events).
func recordedCall(t *testing.T, file string) (Call, Where) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "e2e", "testdata", "events", file))
	if err != nil {
		t.Fatal(err)
	}
	var ev struct {
		Cwd      string          `json:"cwd"`
		Tool     string          `json:"tool_name"`
		Input    json.RawMessage `json:"tool_input"`
		Response json.RawMessage `json:"tool_response"`
	}
	if err := json.Unmarshal(data, &ev); err != nil {
		t.Fatal(err)
	}
	return Call{Tool: ev.Tool, Input: ev.Input, Response: ev.Response}, Where{SessionID: "s1", Root: ev.Cwd, Cwd: ev.Cwd, PromptNumber: 1}
}

func TestShellAndSearchReads(t *testing.T) {
	codex, codexWhere := recordedCall(t, "codex/PostToolUse-Bash.json")
	if r := Analyze(codex, codexWhere); strings.Join(r.FilesRead, ",") != "src/discount.js" || r.Observation != nil {
		t.Errorf("recorded codex sed -n: files read %v, observation %+v", r.FilesRead, r.Observation)
	}
	bash := func(cmd, out string) Call {
		in, _ := json.Marshal(map[string]string{"command": cmd})
		resp, _ := json.Marshal(out)
		return Call{Tool: "Bash", Input: in, Response: resp}
	}
	for _, tc := range []struct {
		name string
		call Call
		want []string
	}{
		{"cat", bash("cat internal/a.go docs/b.md", "x"), []string{"internal/a.go", "docs/b.md"}},
		{"head -n", bash("head -n 40 internal/a.go", "x"), []string{"internal/a.go"}},
		{"tail -20 and nl", bash("tail -20 a.go && nl -ba 'b c.go'", "x"), []string{"a.go", "b c.go"}},
		{"sed script skipped", bash("sed -n '1,200p' src/discount.js", "x"), []string{"src/discount.js"}},
		{"grep -rn hits", bash("grep -rn applyDiscount src", "src/cart.js:3:import { applyDiscount }\nsrc/discount.js:2:export function applyDiscount("), []string{"src", "src/cart.js", "src/discount.js"}},
		{"grep -rl hits", bash("grep -rl applyDiscount .", "./src/cart.js\n./src/discount.js\n"), []string{"src/cart.js", "src/discount.js"}},
		{"rg -l with -g", bash("rg -l -g '*.js' applyDiscount", "src/cart.js\n"), []string{"src/cart.js"}},
		{"grep -e pattern then file", bash("grep -e foo a.go", ""), []string{"a.go"}},
		{"pipe: grep reads stdin", bash("cat a.go | grep -n foo", "3:foo"), []string{"a.go"}},
		{"globs and variables skipped", bash("cat *.go $F", "x"), nil},
		{"other programs read nothing", bash("go build ./...", ""), nil},
		{"absolute path outside", bash("cat /etc/hostname", "h"), []string{"/etc/hostname"}},
		{"gemini grep_search", Call{Tool: "grep_search", Input: []byte(`{"pattern":"applyDiscount"}`),
			Response: []byte(`{"llmContent":"Found 2 matches for pattern \"applyDiscount\" in path \".\":\n---\nFile: src/cart.js\nL3: import { applyDiscount } from './discount.js';\n---\nFile: src/discount.js\nL2: export function applyDiscount(cents, percent) {\n---"}`)},
			[]string{"src/cart.js", "src/discount.js"}},
		{"opencode grep", Call{Tool: "grep", Input: []byte(`{"pattern":"applyDiscount","path":"/home/dev/src/shop-api"}`),
			Response: []byte(`{"output":"Found 2 matches\n/home/dev/src/shop-api/src/cart.js:\n  Line 3: import { applyDiscount } from './discount.js';\n\n/home/dev/src/shop-api/src/discount.js:\n  Line 2: export function applyDiscount(cents, percent) {","metadata":{"matches":2}}`)},
			[]string{"src/cart.js", "src/discount.js"}},
		{"opencode glob", Call{Tool: "glob", Input: []byte(`{"pattern":"**/*.js"}`),
			Response: []byte(`{"output":"/home/dev/src/shop-api/src/cart.js\n/home/dev/src/shop-api/src/discount.js","metadata":{"count":2}}`)},
			[]string{"src/cart.js", "src/discount.js"}},
		{"no files found", Call{Tool: "glob", Input: []byte(`{"pattern":"*.rs"}`), Response: []byte(`{"output":"No files found"}`)}, nil},
		{"a listing is not a search", Call{Tool: "list_directory", Input: []byte(`{"dir_path":"/home/dev/src/shop-api/docs"}`),
			Response: []byte(`{"llmContent":"Directory listing for /home/dev/src/shop-api/docs:\nREADME.md"}`)}, []string{"docs"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Analyze(tc.call, here)
			if strings.Join(r.FilesRead, ",") != strings.Join(tc.want, ",") {
				t.Errorf("files read %q, want %q", r.FilesRead, tc.want)
			}
		})
	}
}

// Codex gives a shell call's output alone, with no exit code: a failing and
// then a passing `node --test` must still read as a failed check and its
// success.
func TestCodexTestRunWithoutExitCode(t *testing.T) {
	tap := func(pass, fail int) string {
		return "TAP version 13\n# Subtest: rounds\nnot ok 1 - rounds\n1..1\n# tests 1\n# pass " + strconv.Itoa(pass) + "\n# fail " + strconv.Itoa(fail) + "\n"
	}
	spec := "✖ rounds (4.5ms)\nℹ tests 1\nℹ pass 0\nℹ fail 1\n"
	for _, tc := range []struct {
		name, out string
		failed    bool
	}{
		{"tap failure", tap(0, 1), true},
		{"spec failure", spec, true},
		{"tap pass", strings.Replace(tap(1, 0), "not ok", "ok", 1), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, _ := json.Marshal(tc.out)
			r := Analyze(Call{Tool: "Bash", Input: []byte(`{"command":"node --test src/"}`), Response: resp}, here)
			if tc.failed {
				if r.Observation == nil || r.Observation.Type != memory.TypeProblem || !hasConcept(r.Observation, ConceptCheck) {
					t.Fatalf("want a failed check, got %+v", r.Observation)
				}
				return
			}
			if r.Check == nil || r.Check.Failed || !r.Check.IsCheck {
				t.Fatalf("want a passing check, got %+v", r)
			}
			fail := Analyze(Call{Tool: "Bash", Input: []byte(`{"command":"node --test src/"}`), Response: []byte(`"` + strings.ReplaceAll(tap(0, 1), "\n", `\n`) + `"`)}, here).Observation
			if s := Success(*r.Check, fail, here, "Bash"); s == nil || s.Title != "node --test src/ passes again" {
				t.Fatalf("success after the failure: %+v", s)
			}
		})
	}
}
