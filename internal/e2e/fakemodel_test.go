package e2e

import (
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// The fake model answers each provider's request with the scripted step
// that follows the tool results after the prompt, in that provider's form,
// and answers side requests with text.
func TestFakeModelSteps(t *testing.T) {
	srv, err := StartServer(filepath.Join(t.TempDir(), "requests.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	srv.Play("t", Script{Prompt: "fix it", Steps: []Step{
		{Tool: "read", Args: map[string]string{"file": "a.go"}},
		{Text: "fixed"},
	}, ToolCall: func(s Step, tools []string) Call {
		return Call{Name: "read_" + tools[0], Args: map[string]any{"file": s.Args["file"]}}
	}})
	for _, tc := range []struct {
		name, path, body, want string
		step                   int
	}{
		{"anthropic first", "/v1/messages",
			`{"stream":true,"tools":[{"name":"T"}],"messages":[{"role":"user","content":[{"type":"text","text":"fix it"}]}]}`,
			`"name":"read_T"`, 0},
		{"anthropic after a result", "/v1/messages",
			`{"stream":true,"tools":[{"name":"T"}],"messages":[{"role":"user","content":"fix it"},{"role":"assistant","content":[{"type":"tool_use"}]},{"role":"user","content":[{"type":"tool_result","content":"x"}]}]}`,
			`"text":"fixed"`, 1},
		{"anthropic side request", "/v1/messages",
			`{"messages":[{"role":"user","content":"write a title for: fix it"}]}`, `"text":"ok"`, -1},
		{"responses", "/v1/responses",
			`{"tools":[{"type":"namespace","name":"mcp__mem","tools":[{"name":"search"}]}],"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"fix it"}]}]}`,
			`"name":"read_mcp__mem"`, 0},
		{"responses after a result", "/v1/responses",
			`{"tools":[{"type":"function","name":"T"}],"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"fix it"}]},{"type":"function_call_output","output":"x"}]}`,
			`"text":"fixed"`, 1},
		{"gemini", "/v1beta/models/m:streamGenerateContent?alt=sse",
			`{"tools":[{"functionDeclarations":[{"name":"T"}]}],"contents":[{"role":"user","parts":[{"text":"fix it"}]}]}`,
			`"functionCall":{"args":{"file":"a.go"},"name":"read_T"}`, 0},
		{"gemini after a result", "/v1beta/models/m:streamGenerateContent?alt=sse",
			`{"tools":[{"functionDeclarations":[{"name":"T"}]}],"contents":[{"role":"user","parts":[{"text":"fix it"}]},{"role":"model","parts":[{"functionCall":{"name":"T"}}]},{"role":"user","parts":[{"functionResponse":{"name":"T"}}]}]}`,
			`"text":"fixed"`, 1},
		{"chat", "/v1/chat/completions",
			`{"stream":true,"tools":[{"type":"function","function":{"name":"T"}}],"messages":[{"role":"user","content":"fix it"}]}`,
			`"name":"read_T"`, 0},
		{"chat after a result", "/v1/chat/completions",
			`{"stream":true,"tools":[{"type":"function","function":{"name":"T"}}],"messages":[{"role":"user","content":"fix it"},{"role":"tool","content":"x"}]}`,
			`"content":"fixed"`, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := http.Post(srv.URL+tc.path, "application/json", strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || !strings.Contains(string(b), tc.want) {
				t.Errorf("status %d, reply lacks %s:\n%s", resp.StatusCode, tc.want, b)
			}
			reqs := srv.Requests("t")
			if got := reqs[len(reqs)-1].Step; got != tc.step {
				t.Errorf("logged step %d, want %d", got, tc.step)
			}
		})
	}
}
