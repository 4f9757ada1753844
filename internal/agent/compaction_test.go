package agent

import (
	"reflect"
	"testing"
)

// TestAdaptersSayHowTheirAgentCompacts: the compaction rules the handler
// follows come from the adapters, on the events they decode.
func TestAdaptersSayHowTheirAgentCompacts(t *testing.T) {
	for _, tc := range []struct {
		agent, event     string
		atPrompt, before bool
	}{
		{"claude", `{"hook_event_name":"PreCompact","session_id":"s","trigger":"manual"}`, false, false},
		{"claude", `{"hook_event_name":"SessionStart","session_id":"s","source":"compact"}`, false, false},
		{"claude", `{"hook_event_name":"UserPromptSubmit","session_id":"s","prompt":"p"}`, false, false},
		{"codex", `{"hook_event_name":"UserPromptSubmit","session_id":"s","prompt":"p"}`, false, false},
		{"gemini", `{"hook_event_name":"PreCompress","session_id":"s","trigger":"manual"}`, true, false},
		{"gemini", `{"hook_event_name":"PreCompress","session_id":"s","trigger":"auto"}`, false, false},
		{"gemini", `{"hook_event_name":"BeforeAgent","session_id":"s","prompt":"p"}`, true, false},
		{"gemini", `{"hook_event_name":"SessionStart","session_id":"s","source":"startup"}`, true, false},
		{"gemini", `{"hook_event_name":"AfterTool","session_id":"s","tool_name":"read_file"}`, true, false},
		{"copilot", `{"hook_event_name":"PreCompact","session_id":"s","trigger":"auto"}`, true, false},
		{"copilot", `{"hook_event_name":"PreCompact","session_id":"s","trigger":"manual"}`, true, false},
		{"copilot", `{"hook_event_name":"UserPromptSubmit","session_id":"s","prompt":"p"}`, true, false},
		{"copilot", `{"hook_event_name":"SessionStart","session_id":"s","source":"resume"}`, true, false},
		{"copilot", `{"hook_event_name":"Stop","session_id":"s"}`, false, false},
		{"cursor", `{"hook_event_name":"preCompact","conversation_id":"s","trigger":"manual"}`, false, false},
		{"opencode", `{"event":"compacting","sessionID":"s"}`, false, true},
		{"opencode", `{"event":"chat.message","sessionID":"s","text":"p"}`, false, false},
	} {
		ev, err := lookup(t, tc.agent).Adapter.Decode([]byte(tc.event), func(string) string { return "" })
		if err != nil {
			t.Fatalf("%s %s: %v", tc.agent, tc.event, err)
		}
		if ev.CompactionAtPrompt != tc.atPrompt || ev.CheckpointFirst != tc.before {
			t.Errorf("%s %s: block at prompt %v, checkpoint first %v; want %v, %v",
				tc.agent, tc.event, ev.CompactionAtPrompt, ev.CheckpointFirst, tc.atPrompt, tc.before)
		}
	}
}

// TestGeminiSaysWhereACompactionWouldShow: an automatic PreCompress may or
// may not compress; it names the transcript where a compression would show,
// and the events after it say the transcript can be read for it by now. A
// manual one compresses: nothing to read.
func TestGeminiSaysWhereACompactionWouldShow(t *testing.T) {
	const tr = `"transcript_path":"/h/.gemini/tmp/p/chats/session-1.jsonl"`
	for _, tc := range []struct {
		event           string
		unsure, settled bool
		transcript      string
	}{
		{`{"hook_event_name":"PreCompress","session_id":"s","trigger":"auto",` + tr + `}`, true, false, "/h/.gemini/tmp/p/chats/session-1.jsonl"},
		{`{"hook_event_name":"PreCompress","session_id":"s","trigger":"auto"}`, false, false, ""},
		{`{"hook_event_name":"PreCompress","session_id":"s","trigger":"manual",` + tr + `}`, false, false, ""},
		{`{"hook_event_name":"AfterTool","session_id":"s","tool_name":"read_file",` + tr + `}`, false, true, "/h/.gemini/tmp/p/chats/session-1.jsonl"},
		{`{"hook_event_name":"BeforeAgent","session_id":"s","prompt":"p",` + tr + `}`, false, true, "/h/.gemini/tmp/p/chats/session-1.jsonl"},
		{`{"hook_event_name":"AfterAgent","session_id":"s","prompt_response":"r",` + tr + `}`, false, true, "/h/.gemini/tmp/p/chats/session-1.jsonl"},
		{`{"hook_event_name":"SessionStart","session_id":"s","source":"startup",` + tr + `}`, false, false, ""},
	} {
		ev, err := lookup(t, "gemini").Adapter.Decode([]byte(tc.event), func(string) string { return "" })
		if err != nil {
			t.Fatal(err)
		}
		if ev.CompactionUnsure != tc.unsure || ev.CompactionSettled != tc.settled || ev.Transcript != tc.transcript {
			t.Errorf("%s: unsure %v, settled %v, transcript %q; want %v, %v, %q", tc.event,
				ev.CompactionUnsure, ev.CompactionSettled, ev.Transcript, tc.unsure, tc.settled, tc.transcript)
		}
	}
}

// TestAdaptersSayWhereToolContextGoes: the agents whose reply to a tool
// event reaches the model say so on the event; the others' file context
// waits for the next prompt.
func TestAdaptersSayWhereToolContextGoes(t *testing.T) {
	for _, tc := range []struct {
		agent, event string
		after        bool
	}{
		{"claude", `{"hook_event_name":"PostToolUse","session_id":"s","tool_name":"Read"}`, true},
		{"claude", `{"hook_event_name":"PostToolUseFailure","session_id":"s","tool_name":"Bash"}`, true},
		{"claude", `{"hook_event_name":"UserPromptSubmit","session_id":"s","prompt":"p"}`, false},
		{"codex", `{"hook_event_name":"PostToolUse","session_id":"s","tool_name":"shell"}`, false},
		{"gemini", `{"hook_event_name":"AfterTool","session_id":"s","tool_name":"read_file"}`, true},
		{"copilot", `{"hook_event_name":"PostToolUse","session_id":"s","tool_name":"view"}`, true},
		{"copilot", `{"hook_event_name":"PostToolUseFailure","session_id":"s","tool_name":"bash"}`, false},
		{"cursor", `{"hook_event_name":"afterFileEdit","conversation_id":"s","file_path":"/w/a.go"}`, false},
		{"opencode", `{"event":"tool.execute.after","sessionID":"s","tool":"read"}`, false},
	} {
		ev, err := lookup(t, tc.agent).Adapter.Decode([]byte(tc.event), func(string) string { return "" })
		if err != nil {
			t.Fatalf("%s %s: %v", tc.agent, tc.event, err)
		}
		if ev.ContextAfterTool != tc.after {
			t.Errorf("%s %s: context after the tool %v, want %v", tc.agent, tc.event, ev.ContextAfterTool, tc.after)
		}
	}
}

// TestClaudeAndCopilotDecodeApart: the decoding Claude Code and Copilot
// share keeps each one's own fields to itself.
func TestClaudeAndCopilotDecodeApart(t *testing.T) {
	getenv := func(k string) string { return map[string]string{"CLAUDE_PROJECT_DIR": "/p"}[k] }
	for _, tc := range []struct {
		name, event string
		claude      Event
		copilot     Event
	}{
		{"a subagent's stop",
			`{"hook_event_name":"SubagentStop","session_id":"s","agent_id":"a","agent_type":"explore","last_assistant_message":"done"}`,
			Event{Kind: KindSubagentStop, SessionID: "s:a", ParentID: "s", AgentType: "explore", Message: "done", ProjectDir: "/p"},
			Event{Kind: KindIgnored, SessionID: "s"}},
		{"a start after compaction",
			`{"hook_event_name":"SessionStart","session_id":"s","source":"compact"}`,
			Event{Kind: KindCompacted, SessionID: "s", Source: "compact", ProjectDir: "/p"},
			Event{Kind: KindSessionStart, SessionID: "s", Source: "compact", CompactionAtPrompt: true}},
		{"a stop",
			`{"hook_event_name":"Stop","session_id":"s","last_assistant_message":"bye","transcript_path":"/t","turn_id":"1"}`,
			Event{Kind: KindStop, SessionID: "s", Message: "bye", ProjectDir: "/p"},
			Event{Kind: KindStop, SessionID: "s"}},
		{"a pre-compact",
			`{"hook_event_name":"PreCompact","session_id":"s","trigger":"auto"}`,
			Event{Kind: KindPreCompact, SessionID: "s", ProjectDir: "/p"},
			Event{Kind: KindPreCompact, SessionID: "s", Source: "auto", CompactionAtPrompt: true}},
	} {
		for _, a := range []struct {
			adapter Adapter
			want    Event
		}{{newClaude(ClaudeCode, "CLAUDE_PROJECT_DIR"), tc.claude}, {newCopilot(), tc.copilot}} {
			got, err := a.adapter.Decode([]byte(tc.event), getenv)
			if err != nil {
				t.Fatal(err)
			}
			got.Agent, got.Name = "", ""
			if !reflect.DeepEqual(got, a.want) {
				t.Errorf("%s, %s:\ngot  %+v\nwant %+v", a.adapter.Agent(), tc.name, got, a.want)
			}
		}
	}
	// A tool's result: Claude's tool_response, Copilot's tool_result.
	ev := `{"hook_event_name":"PostToolUseFailure","session_id":"s","tool_name":"Bash","tool_input":{"command":"x"},` +
		`"tool_response":{"exit_code":3},"tool_result":{"result_type":"failure","text_result_for_llm":"boom"},"error":"e"}`
	c, _ := newClaude(ClaudeCode, "").Decode([]byte(ev), getenv)
	p, _ := newCopilot().Decode([]byte(ev), getenv)
	if string(c.Call.Response) != `{"exit_code":3}` || string(p.Call.Response) != `{"output":"boom"}` {
		t.Errorf("responses: claude %s, copilot %s", c.Call.Response, p.Call.Response)
	}
	for _, e := range []Event{c, p} {
		if e.Call.Tool != "Bash" || !e.Call.Failed || e.Call.Error != "e" || string(e.Call.Input) != `{"command":"x"}` {
			t.Errorf("%s call: %+v", e.Agent, e.Call)
		}
	}
}

// TestClaudeLeavesCopilotsEventsToCopilot: Copilot CLI runs a project's
// .claude hooks too, with its own payload (it has a timestamp) and
// COPILOT_CLI=1: `mem hook claude` leaves such an event to `mem hook
// copilot`, and takes the rest.
func TestClaudeLeavesCopilotsEventsToCopilot(t *testing.T) {
	copilot := `{"hook_event_name":"UserPromptSubmit","session_id":"s","timestamp":"2026-11-24T03:41:41.001Z","cwd":"/w","prompt":"p"}`
	claude := `{"hook_event_name":"UserPromptSubmit","session_id":"s","transcript_path":"/t","cwd":"/w","prompt":"p"}`
	for _, tc := range []struct {
		adapter    Adapter
		event, env string
		want       Kind
	}{
		{newClaude(ClaudeCode, "CLAUDE_PROJECT_DIR"), copilot, "1", KindIgnored},
		{newClaude(ClaudeCode, "CLAUDE_PROJECT_DIR"), copilot, "", KindPrompt},
		{newClaude(ClaudeCode, "CLAUDE_PROJECT_DIR"), claude, "1", KindPrompt},
		{newClaude(Codex, ""), copilot, "1", KindPrompt},
		{newCopilot(), copilot, "1", KindPrompt},
	} {
		ev, err := tc.adapter.Decode([]byte(tc.event), func(k string) string {
			if k == "COPILOT_CLI" {
				return tc.env
			}
			return ""
		})
		if err != nil || ev.Kind != tc.want {
			t.Errorf("%s, COPILOT_CLI=%q, %s: kind %q (%v), want %q", tc.adapter.Agent(), tc.env, tc.event, ev.Kind, err, tc.want)
		}
	}
}
