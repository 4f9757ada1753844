package agent

import (
	"encoding/json"
	"testing"
)

// FuzzAdapters feeds every agent's decoder arbitrary stdin and encodes a
// reply with arbitrary context for what it accepts: no panic, and the reply
// is nothing or valid JSON.
func FuzzAdapters(f *testing.F) {
	f.Add([]byte(`{"session_id":"s","hook_event_name":"SessionStart","source":"startup","cwd":"/x"}`), "<memory_context>\"quoted\" & \u2028</memory_context>")
	f.Add([]byte(`{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"Edit","tool_input":{"file_path":7}}`), "")
	f.Add([]byte(`{"sessionId":"s","hook_event_name":"AfterTool","tool_name":"run_shell_command","tool_response":"x"}`), "\x00\xff")
	f.Add([]byte(`{"type":"session.created","properties":{"info":{"id":"s"}}}`), "ctx")
	f.Add([]byte(`{"hook_event_name":"PostToolUse","session_id":"s","tool_name":"Bash","tool_result":{"result_type":"success","text_result_for_llm":"x\n<shellId: 0 completed with exit code 1>"}}`), "ctx")
	f.Add([]byte(`{"hook_event_name":"afterFileEdit","conversation_id":"c","workspace_roots":["/w"],"file_path":"/w/a","edits":[{"old_string":"a","new_string":"b"}]}`), "ctx")
	f.Add([]byte(`[]`), "")
	f.Fuzz(func(t *testing.T, data []byte, context string) {
		getenv := func(string) string { return "" }
		for _, ag := range All() {
			name, a := ag.Name, ag.Adapter
			ev, err := a.Decode(data, getenv)
			if err != nil {
				continue
			}
			out := a.Encode(ev, Reply{Context: context})
			if out != nil && !json.Valid(out) {
				t.Fatalf("%s: reply to %q is not JSON: %q", name, data, out)
			}
		}
	})
}
