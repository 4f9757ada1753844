package capture

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/memhq/mem/internal/memory"
)

var here = Where{SessionID: "s1", Root: "/home/dev/src/shop-api", Cwd: "/home/dev/src/shop-api", PromptNumber: 2}

func TestAnalyze(t *testing.T) {
	tests := []struct {
		name      string
		call      Call
		typ       memory.Type // "" for no observation
		title     string
		files     []string
		facts     []string
		read      []string
		passCheck bool
	}{
		{
			name: "claude edit",
			call: Call{Tool: "Edit", Input: []byte(`{"file_path":"/home/dev/src/shop-api/internal/orders/refund.go","old_string":"maxRetries := 3","new_string":"maxRetries := cfg.Refund.MaxRetries"}`)},
			typ:  memory.TypeChange, title: "Edited internal/orders/refund.go: maxRetries := 3 → maxRetries := cfg.Refund.MaxRetries",
			files: []string{"internal/orders/refund.go"}, facts: []string{"before: maxRetries := 3", "after: maxRetries := cfg.Refund.MaxRetries"},
		},
		{
			name: "edit keeps the names of every changed line and the function it sits in",
			call: Call{Tool: "Edit", Input: []byte(`{"file_path":"src/link.c","old_string":"static int\nbpf_link_attach(int fd)\n{\n\tint err;\n\terr = attach(fd);\n\treturn err;\n}","new_string":"static int\nbpf_link_attach(int fd)\n{\n\tint err;\n\terr = attach(fd);\n\tif (err)\n\t\tlibbpf_err_errno(err, LIBBPF_LINK_FLAGS);\n\treturn err;\n}"}`)},
			typ:  memory.TypeChange, title: "Edited src/link.c: added if (err)",
			files: []string{"src/link.c"}, facts: []string{"in: bpf_link_attach", "names: libbpf_err_errno, LIBBPF_LINK_FLAGS"},
		},
		{
			name: "claude write",
			call: Call{Tool: "Write", Input: []byte(`{"file_path":"/home/dev/src/shop-api/internal/orders/refund_test.go","content":"package orders\n\nimport \"testing\"\n\nfunc TestRefundRetries(t *testing.T) {\n\t// ...\n}\n"}`),
				Response: []byte(`{"filePath":"x","success":true}`)},
			typ: memory.TypeChange, title: "Wrote internal/orders/refund_test.go (7 lines): TestRefundRetries",
			files: []string{"internal/orders/refund_test.go"},
		},
		{
			name: "multiedit",
			call: Call{Tool: "MultiEdit", Input: []byte(`{"file_path":"a.go","edits":[{"old_string":"x := 1","new_string":"x := 2"},{"old_string":"y","new_string":"z"}]}`)},
			typ:  memory.TypeChange, title: "Edited a.go (2 edits): x := 1 → x := 2", files: []string{"a.go"},
		},
		{
			name: "codex apply_patch",
			call: Call{Tool: "apply_patch", Input: []byte(`{"command":"*** Begin Patch\n*** Update File: internal/payments/client.go\n@@\n-\treq.Header.Set(\"Idempotency-Key\", \"\")\n+\treq.Header.Set(\"Idempotency-Key\", key)\n*** End Patch\n"}`),
				Response: []byte(`"Success. Updated the following files:\nM internal/payments/client.go\n"`)},
			typ:   memory.TypeChange,
			title: `Patched internal/payments/client.go: req.Header.Set("Idempotency-Key", "") → req.Header.Set("Idempotency-Key", key)`,
			files: []string{"internal/payments/client.go"},
		},
		{
			name: "gemini replace",
			call: Call{Tool: "replace", Input: []byte(`{"file_path":"/home/dev/src/shop-api/internal/catalog/cache.go","old_string":"ttl := 5 * time.Minute","new_string":"ttl := cfg.Catalog.CacheTTL"}`)},
			typ:  memory.TypeChange, title: "Edited internal/catalog/cache.go: ttl := 5 * time.Minute → ttl := cfg.Catalog.CacheTTL",
			files: []string{"internal/catalog/cache.go"},
		},
		{
			name: "opencode edit",
			call: Call{Tool: "edit", Input: []byte(`{"filePath":"/home/dev/src/shop-api/internal/orders/refund.go","oldString":"maxRetries := 3","newString":"maxRetries := cfg.Refund.MaxRetries"}`)},
			typ:  memory.TypeChange, title: "Edited internal/orders/refund.go: maxRetries := 3 → maxRetries := cfg.Refund.MaxRetries",
		},
		{
			name: "failed edit is not a change",
			call: Call{Tool: "Edit", Failed: true, Input: []byte(`{"file_path":"a.go","old_string":"x","new_string":"y"}`)},
		},
		{
			name: "claude bash failure without exit code",
			call: Call{Tool: "Bash", Input: []byte(`{"command":"go test ./internal/orders/...","description":"Run order tests"}`),
				Response: []byte(`{"stdout":"--- FAIL: TestRefundRetries (0.00s)\n    refund_test.go:14: got 3 retries, want 5\nFAIL\nFAIL\tshop-api/internal/orders\t0.012s\nFAIL\n","stderr":"","interrupted":false}`)},
			typ:   memory.TypeProblem,
			title: "go test ./internal/orders/... failed: refund_test.go:14: got 3 retries, want 5",
			facts: []string{"command: go test ./internal/orders/...", "error: refund_test.go:14: got 3 retries, want 5", "failing tests: TestRefundRetries"},
		},
		{
			name: "claude bash pass",
			call: Call{Tool: "Bash", Input: []byte(`{"command":"go test ./internal/orders/..."}`),
				Response: []byte(`{"stdout":"ok  \tshop-api/internal/orders\t0.015s\n","stderr":"","interrupted":false}`)},
			passCheck: true,
		},
		{
			name: "PostToolUseFailure",
			call: Call{Tool: "Bash", Failed: true, Error: "Exit code 127\nbash: line 1: gofmtx: command not found", Input: []byte(`{"command":"gofmtx -l ."}`)},
			typ:  memory.TypeProblem, title: "gofmtx -l . failed: bash: line 1: gofmtx: command not found",
		},
		{
			name: "grep output mentioning errors is no failure",
			call: Call{Tool: "Bash", Input: []byte(`{"command":"grep -rn 'Error: ' ."}`), Response: []byte(`{"stdout":"Error: x\n","stderr":""}`)},
		},
		{
			name: "gemini shell exit code",
			call: Call{Tool: "run_shell_command", Input: []byte(`{"command":"npm test"}`),
				Response: []byte(`{"llmContent":"Command: npm test\nDirectory: (root)\nStdout: \nStderr: Error: Cannot find module 'jest'\nExit Code: 1"}`)},
			typ: memory.TypeProblem, title: "npm test failed: Error: Cannot find module 'jest'",
		},
		{
			name: "python traceback",
			call: Call{Tool: "Bash", Input: []byte(`{"command":"python3 tool.py"}`),
				Response: []byte(`{"stdout":"","stderr":"Traceback (most recent call last):\n  File \"tool.py\", line 3, in <module>\n    main()\nKeyError: 'price'\n"}`)},
			typ: memory.TypeProblem, title: "python3 tool.py failed: KeyError: 'price'",
		},
		{
			name: "interrupted", call: Call{Tool: "Bash", Input: []byte(`{"command":"go test ./..."}`), Response: []byte(`{"stdout":"FAIL","interrupted":true}`)},
		},
		{
			name: "read", call: Call{Tool: "Read", Input: []byte(`{"file_path":"/home/dev/src/shop-api/internal/orders/refund.go"}`)},
			read: []string{"internal/orders/refund.go"},
		},
		{
			name: "grep with filenames", call: Call{Tool: "Grep", Input: []byte(`{"pattern":"Refund","path":"/home/dev/src/shop-api/internal"}`), Response: []byte(`{"filenames":["/home/dev/src/shop-api/internal/orders/refund.go","/elsewhere/x.go"]}`)},
			read: []string{"internal", "internal/orders/refund.go", "/elsewhere/x.go"},
		},
		{name: "unknown tool", call: Call{Tool: "WebFetch", Input: []byte(`{"url":"https://x"}`)}},
		{name: "garbage input", call: Call{Tool: "Edit", Input: []byte(`not json`)}},
		{
			name: "secrets are filtered",
			call: Call{Tool: "Bash", Input: []byte(`{"command":"curl -H 'Authorization: Bearer abcdefghijklmnopqrstuvwxyz123456' https://api"}`),
				Response: []byte(`{"stderr":"curl: (6) Could not resolve host: api\nError: password=hunter2","exit_code":6}`)},
			typ: memory.TypeProblem,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Analyze(tt.call, here)
			if tt.typ == "" {
				if r.Observation != nil {
					t.Fatalf("want no observation, got %+v", r.Observation)
				}
			} else {
				o := r.Observation
				if o == nil {
					t.Fatalf("want a %s observation, got none", tt.typ)
				}
				if o.Type != tt.typ {
					t.Errorf("type %s, want %s", o.Type, tt.typ)
				}
				if tt.title != "" && o.Title != tt.title {
					t.Errorf("title\n got %q\nwant %q", o.Title, tt.title)
				}
				if tt.files != nil && strings.Join(o.FilesModified, ",") != strings.Join(tt.files, ",") {
					t.Errorf("files_modified %v, want %v", o.FilesModified, tt.files)
				}
				for _, f := range tt.facts {
					if !slices.Contains(o.Facts, f) {
						t.Errorf("facts %q lack %q", o.Facts, f)
					}
				}
				all := o.Title + o.Narrative + strings.Join(o.Facts, " ")
				for _, secret := range []string{"hunter2", "abcdefghijklmnopqrstuvwxyz123456"} {
					if strings.Contains(all, secret) {
						t.Errorf("secret %q stored: %s", secret, all)
					}
				}
				if again := Analyze(tt.call, here); again.Observation.Hash() != o.Hash() {
					t.Errorf("the same call gave a different observation")
				}
			}
			if tt.read != nil && strings.Join(r.FilesRead, ",") != strings.Join(tt.read, ",") {
				t.Errorf("files read %v, want %v", r.FilesRead, tt.read)
			}
			if (r.Check != nil) != tt.passCheck {
				t.Errorf("passing check %v, want %v", r.Check, tt.passCheck)
			}
		})
	}
}

func TestSuccessAfterFailure(t *testing.T) {
	fail := Analyze(Call{Tool: "Bash", Input: []byte(`{"command":"go test ./..."}`), Response: []byte(`{"stdout":"--- FAIL: TestX (0.00s)\n    x_test.go:3: boom\nFAIL\n"}`)}, here).Observation
	pass := Run{Command: "go test ./internal/...", IsCheck: true}
	s := Success(pass, fail, here, "Bash")
	if s == nil || s.Type != memory.TypeSuccess || s.Title != "go test ./internal/... passes again" {
		t.Fatalf("got %+v", s)
	}
	if Success(pass, nil, here, "Bash") != nil {
		t.Error("a pass with no earlier failure is no success")
	}
	if Success(pass, s, here, "Bash") != nil {
		t.Error("a second pass is no new success")
	}
	other := Analyze(Call{Tool: "Bash", Input: []byte(`{"command":"./deploy.sh"}`), Response: []byte(`{"stderr":"fatal: no remote"}`)}, here).Observation
	if other == nil || Success(pass, other, here, "Bash") != nil {
		t.Error("a pass after a failure of an unrelated command is no success")
	}
}

// TestSupersedesLabelled measures the supersessions capture proposes on a
// labelled set: a false merge (an observation retired that still holds) is
// the costly error, and none is allowed; misses are reported.
func TestSupersedesLabelled(t *testing.T) {
	raw, err := os.ReadFile("testdata/supersede.json")
	if err != nil {
		t.Fatal(err)
	}
	type call struct {
		Tool     string          `json:"tool"`
		Input    json.RawMessage `json:"input"`
		Response json.RawMessage `json:"response"`
		Failed   bool            `json:"failed"`
		Error    string          `json:"error"`
	}
	var cases []struct {
		Name    string `json:"name"`
		Earlier []call `json:"earlier"`
		Later   call   `json:"later"`
		Want    int    `json:"want"`
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	w := Where{SessionID: "s", Root: "/repo", Cwd: "/repo"}
	var pos, falseMerges, misses, wrongTarget int
	for _, c := range cases {
		var earlier []memory.Observation // newest first
		var last *memory.Observation
		for i, e := range c.Earlier {
			r := Analyze(Call{Tool: e.Tool, Input: e.Input, Response: e.Response, Failed: e.Failed, Error: e.Error}, w)
			if r.Observation == nil {
				t.Fatalf("%s: earlier call %d makes no observation", c.Name, i)
			}
			r.Observation.ID = int64(i + 1)
			earlier = append([]memory.Observation{*r.Observation}, earlier...)
			last = &earlier[0]
		}
		r := Analyze(Call{Tool: c.Later.Tool, Input: c.Later.Input, Response: c.Later.Response, Failed: c.Later.Failed, Error: c.Later.Error}, w)
		o := r.Observation
		if r.Check != nil {
			o = Success(*r.Check, last, w, c.Later.Tool)
		}
		got := int64(0)
		if o != nil {
			got = Supersedes(o, earlier)
		}
		want := int64(c.Want + 1)
		if c.Want >= 0 {
			pos++
		}
		switch {
		case got == want:
		case c.Want < 0:
			falseMerges++
			t.Errorf("%s: false merge: proposed #%d", c.Name, got)
		case got == 0:
			misses++
			t.Logf("%s: missed", c.Name)
		default:
			wrongTarget++
			t.Errorf("%s: proposed #%d, want #%d", c.Name, got, want)
		}
	}
	t.Logf("supersession on %d labelled cases (%d should merge): %d false merges, %d wrong targets, %d misses",
		len(cases), pos, falseMerges, wrongTarget, misses)
}
