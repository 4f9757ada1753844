package agent

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestCopilotAndCursorDecode: what the adapters make of each event.
func TestCopilotAndCursorDecode(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, tc := range []struct {
		name  string
		a     Adapter
		env   map[string]string
		event string
		want  Event
	}{
		{"copilot shell", newCopilot(), nil,
			`{"hook_event_name":"PostToolUse","session_id":"p1","cwd":"/w","tool_name":"Bash","tool_input":{"command":"go test ./..."},` +
				`"tool_result":{"result_type":"success","text_result_for_llm":"FAIL\n<shellId: 0 completed with exit code 1>"}}`,
			Event{Agent: Copilot, Name: "PostToolUse", Kind: KindTool, SessionID: "p1", Cwd: "/w", ContextAfterTool: true}},
		{"copilot failure", newCopilot(), nil,
			`{"hook_event_name":"PostToolUseFailure","session_id":"p1","cwd":"/w","tool_name":"Edit","tool_input":{"path":"/w/a.go"},"error":"no match"}`,
			Event{Agent: Copilot, Name: "PostToolUseFailure", Kind: KindTool, SessionID: "p1", Cwd: "/w"}},
		{"copilot compaction", newCopilot(), nil, `{"hook_event_name":"PreCompact","session_id":"p1","trigger":"auto"}`,
			Event{Agent: Copilot, Name: "PreCompact", Kind: KindPreCompact, SessionID: "p1", Source: "auto", CompactionAtPrompt: true}},
		{"copilot camelCase", newCopilot(), nil, `{"sessionId":"p1","timestamp":1,"cwd":"/w","source":"new"}`,
			Event{Agent: Copilot, Kind: KindIgnored, Cwd: "/w", Source: "new"}},
		{"cursor root from the workspace", newCursor(), nil,
			`{"hook_event_name":"beforeSubmitPrompt","conversation_id":"c1","generation_id":"g1","workspace_roots":["/w","/x"],"prompt":"hi"}`,
			Event{Agent: Cursor, Name: "beforeSubmitPrompt", Kind: KindPrompt, SessionID: "c1", ProjectDir: "/w", Prompt: "hi"}},
		{"cursor root from its variable", newCursor(), map[string]string{"CURSOR_PROJECT_DIR": "/p"},
			`{"hook_event_name":"sessionEnd","session_id":"c1","workspace_roots":["/w"],"reason":"completed"}`,
			Event{Agent: Cursor, Name: "sessionEnd", Kind: KindSessionEnd, SessionID: "c1", ProjectDir: "/p"}},
		{"cursor edit", newCursor(), nil,
			`{"hook_event_name":"afterFileEdit","conversation_id":"c1","workspace_roots":["/w"],"file_path":"/w/a.go","edits":[{"old_string":"a","new_string":"b"}]}`,
			Event{Agent: Cursor, Name: "afterFileEdit", Kind: KindTool, SessionID: "c1", ProjectDir: "/w"}},
		{"cursor wrong types", newCursor(), nil, `{"hook_event_name":"sessionStart","conversation_id":7,"workspace_roots":"/w"}`,
			Event{Agent: Cursor, Name: "sessionStart", Kind: KindSessionStart}},
	} {
		got, err := tc.a.Decode([]byte(tc.event), env(tc.env))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		call := got.Call
		got.Call = tc.want.Call
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\ngot  %+v\nwant %+v", tc.name, got, tc.want)
		}
		switch tc.name {
		case "copilot shell":
			var resp struct {
				Output string `json:"output"`
				Exit   *int   `json:"exit_code"`
			}
			if json.Unmarshal(call.Response, &resp) != nil || resp.Exit == nil || *resp.Exit != 1 || !strings.HasPrefix(resp.Output, "FAIL") ||
				call.Tool != "Bash" || call.Failed {
				t.Errorf("%s: call %+v (response %s)", tc.name, call, call.Response)
			}
		case "copilot failure":
			if !call.Failed || call.Error != "no match" || call.Tool != "Edit" {
				t.Errorf("%s: call %+v", tc.name, call)
			}
		case "cursor edit":
			if call.Tool != "MultiEdit" || string(call.Input) != `{"edits":[{"old_string":"a","new_string":"b"}],"file_path":"/w/a.go"}` {
				t.Errorf("%s: call %+v (input %s)", tc.name, call, call.Input)
			}
		}
	}
	// A Cursor shell command is Claude's Bash: its output is what failure
	// is read from (Cursor gives no exit code).
	ev, _ := newCursor().Decode([]byte(`{"hook_event_name":"afterShellExecution","conversation_id":"c1","command":"npm test","output":"npm ERR! 1","duration":150}`), env(nil))
	if ev.Kind != KindTool || ev.Call.Tool != "Bash" || string(ev.Call.Input) != `{"command":"npm test"}` || string(ev.Call.Response) != `{"output":"npm ERR! 1"}` {
		t.Errorf("cursor shell: %+v (input %s, response %s)", ev, ev.Call.Input, ev.Call.Response)
	}
}
