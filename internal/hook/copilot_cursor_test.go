package hook

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestCopilotAndCursorReplies: where each protocol takes context, and in
// which shape (verified against Copilot CLI 1.0.102; Cursor as documented).
func TestCopilotAndCursorReplies(t *testing.T) {
	r := newRig(t)
	got := r.run(t, "copilot", `{"hook_event_name":"SessionStart","session_id":"p1","cwd":"/w","source":"new"}`)
	if want := `{"additionalContext":"<memory_context mode=\"start\" session=\"p1\"/>"}` + "\n"; got != want {
		t.Fatalf("copilot start: got %s want %s", got, want)
	}
	got = r.run(t, "cursor", `{"hook_event_name":"sessionStart","conversation_id":"c1","session_id":"c1","workspace_roots":["/w"]}`)
	if want := `{"additional_context":"<memory_context mode=\"start\" session=\"c1\"/>"}` + "\n"; got != want {
		t.Fatalf("cursor start: got %s want %s", got, want)
	}
	for _, ev := range []string{
		`{"hook_event_name":"beforeSubmitPrompt","conversation_id":"c1","workspace_roots":["/w"],"prompt":"hi"}`,
		`{"hook_event_name":"preCompact","conversation_id":"c1","workspace_roots":["/w"],"trigger":"auto"}`,
		`{"hook_event_name":"stop","conversation_id":"c1","workspace_roots":["/w"],"status":"completed","loop_count":0}`,
		`{"hook_event_name":"sessionEnd","conversation_id":"c1","session_id":"c1","workspace_roots":["/w"],"reason":"completed"}`,
	} {
		if got := r.run(t, "cursor", ev); got != "" {
			t.Errorf("cursor takes context at sessionStart only; %s got %s", ev, got)
		}
	}
	// Encode, for a reply that has context: the events that take none
	// answer nothing.
	for _, tc := range []struct {
		a     Adapter
		event string
		want  string
	}{
		{Copilot(), "UserPromptSubmit", `{"additionalContext":"x"}`},
		{Copilot(), "PostToolUse", `{"additionalContext":"x"}`},
		{Copilot(), "PostToolUseFailure", ``},
		{Copilot(), "PreCompact", ``},
		{Copilot(), "Stop", ``},
		{Cursor(), "sessionStart", `{"additional_context":"x"}`},
		{Cursor(), "beforeSubmitPrompt", ``},
		{Cursor(), "afterFileEdit", ``},
	} {
		if got := string(tc.a.Encode(Event{Name: tc.event}, Reply{Context: "x"})); got != tc.want {
			t.Errorf("%s %s: got %q want %q", tc.a.Agent(), tc.event, got, tc.want)
		}
	}
}

// TestCopilotCompactionBlockComesWithTheNextPrompt: Copilot's PreCompact
// takes no context, manual or automatic, and every one compacts: the block
// comes with the next prompt, once; a new start drops it.
func TestCopilotCompactionBlockComesWithTheNextPrompt(t *testing.T) {
	for _, trigger := range []string{"manual", "auto"} {
		r := newRig(t)
		r.run(t, "copilot", `{"hook_event_name":"SessionStart","session_id":"p1","cwd":"/w","source":"new"}`)
		if got := r.run(t, "copilot", `{"hook_event_name":"PreCompact","session_id":"p1","cwd":"/w","trigger":"`+trigger+`"}`); got != "" {
			t.Fatalf("PreCompact takes no context, got %s", got)
		}
		if len(r.summary) != 1 {
			t.Fatalf("PreCompact should checkpoint: %v", r.summary)
		}
		got := r.run(t, "copilot", `{"hook_event_name":"UserPromptSubmit","session_id":"p1","cwd":"/w","prompt":"go on"}`)
		if !strings.Contains(got, `mode=\"compact\"`) || !strings.HasPrefix(got, `{"additionalContext":`) {
			t.Fatalf("%s: the prompt after PreCompact: %s", trigger, got)
		}
		if got := r.run(t, "copilot", `{"hook_event_name":"UserPromptSubmit","session_id":"p1","cwd":"/w","prompt":"again"}`); got != "" {
			t.Fatalf("the compaction block comes once, got %s", got)
		}
	}
	r := newRig(t)
	r.run(t, "copilot", `{"hook_event_name":"SessionStart","session_id":"p1","cwd":"/w","source":"new"}`)
	r.run(t, "copilot", `{"hook_event_name":"PreCompact","session_id":"p1","cwd":"/w","trigger":"auto"}`)
	r.run(t, "copilot", `{"hook_event_name":"SessionStart","session_id":"p1","cwd":"/w","source":"resume"}`)
	if got := r.run(t, "copilot", `{"hook_event_name":"UserPromptSubmit","session_id":"p1","cwd":"/w","prompt":"go on"}`); strings.Contains(got, `mode=\"compact\"`) {
		t.Fatalf("the compaction block came on top of the start block: %s", got)
	}
	// Cursor has no place for the block: its preCompact only checkpoints.
	r = newRig(t)
	r.run(t, "cursor", `{"hook_event_name":"sessionStart","conversation_id":"c1","workspace_roots":["/w"]}`)
	r.run(t, "cursor", `{"hook_event_name":"preCompact","conversation_id":"c1","workspace_roots":["/w"],"trigger":"manual"}`)
	if len(r.summary) != 1 {
		t.Fatalf("cursor preCompact should checkpoint: %v", r.summary)
	}
}

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
		{"copilot shell", Copilot(), nil,
			`{"hook_event_name":"PostToolUse","session_id":"p1","cwd":"/w","tool_name":"Bash","tool_input":{"command":"go test ./..."},` +
				`"tool_result":{"result_type":"success","text_result_for_llm":"FAIL\n<shellId: 0 completed with exit code 1>"}}`,
			Event{Agent: AgentCopilot, Name: "PostToolUse", Kind: KindTool, SessionID: "p1", Cwd: "/w", ContextAfterTool: true}},
		{"copilot failure", Copilot(), nil,
			`{"hook_event_name":"PostToolUseFailure","session_id":"p1","cwd":"/w","tool_name":"Edit","tool_input":{"path":"/w/a.go"},"error":"no match"}`,
			Event{Agent: AgentCopilot, Name: "PostToolUseFailure", Kind: KindTool, SessionID: "p1", Cwd: "/w"}},
		{"copilot compaction", Copilot(), nil, `{"hook_event_name":"PreCompact","session_id":"p1","trigger":"auto"}`,
			Event{Agent: AgentCopilot, Name: "PreCompact", Kind: KindPreCompact, SessionID: "p1", Source: "auto", CompactionAtPrompt: true}},
		{"copilot camelCase", Copilot(), nil, `{"sessionId":"p1","timestamp":1,"cwd":"/w","source":"new"}`,
			Event{Agent: AgentCopilot, Kind: KindIgnored, Cwd: "/w", Source: "new"}},
		{"cursor root from the workspace", Cursor(), nil,
			`{"hook_event_name":"beforeSubmitPrompt","conversation_id":"c1","generation_id":"g1","workspace_roots":["/w","/x"],"prompt":"hi"}`,
			Event{Agent: AgentCursor, Name: "beforeSubmitPrompt", Kind: KindPrompt, SessionID: "c1", ProjectDir: "/w", Prompt: "hi"}},
		{"cursor root from its variable", Cursor(), map[string]string{"CURSOR_PROJECT_DIR": "/p"},
			`{"hook_event_name":"sessionEnd","session_id":"c1","workspace_roots":["/w"],"reason":"completed"}`,
			Event{Agent: AgentCursor, Name: "sessionEnd", Kind: KindSessionEnd, SessionID: "c1", ProjectDir: "/p"}},
		{"cursor edit", Cursor(), nil,
			`{"hook_event_name":"afterFileEdit","conversation_id":"c1","workspace_roots":["/w"],"file_path":"/w/a.go","edits":[{"old_string":"a","new_string":"b"}]}`,
			Event{Agent: AgentCursor, Name: "afterFileEdit", Kind: KindTool, SessionID: "c1", ProjectDir: "/w"}},
		{"cursor wrong types", Cursor(), nil, `{"hook_event_name":"sessionStart","conversation_id":7,"workspace_roots":"/w"}`,
			Event{Agent: AgentCursor, Name: "sessionStart", Kind: KindSessionStart}},
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
	ev, _ := Cursor().Decode([]byte(`{"hook_event_name":"afterShellExecution","conversation_id":"c1","command":"npm test","output":"npm ERR! 1","duration":150}`), env(nil))
	if ev.Kind != KindTool || ev.Call.Tool != "Bash" || string(ev.Call.Input) != `{"command":"npm test"}` || string(ev.Call.Response) != `{"output":"npm ERR! 1"}` {
		t.Errorf("cursor shell: %+v (input %s, response %s)", ev, ev.Call.Input, ev.Call.Response)
	}
}
