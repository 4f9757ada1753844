package agent

import "encoding/json"

// Cursor is Cursor (the editor's agent and cursor-agent) in
// sessions.agent.
const Cursor = "cursor"

// cursor speaks Cursor's hook protocol (cursor.com/docs/agent/hooks): every
// event carries hook_event_name, conversation_id and workspace_roots;
// sessionStart answers {"additional_context"}, the only place Cursor takes
// context from a hook. Edits and shell commands come as afterFileEdit
// {file_path, edits: [{old_string, new_string}]} and afterShellExecution
// {command, output}, which mem reads as Claude's MultiEdit and Bash.
type cursor struct{}

type cursorEvent struct {
	Event          json.RawMessage `json:"hook_event_name"`
	ConversationID json.RawMessage `json:"conversation_id"`
	SessionID      json.RawMessage `json:"session_id"`
	WorkspaceRoots json.RawMessage `json:"workspace_roots"`
	Cwd            json.RawMessage `json:"cwd"`
	Prompt         json.RawMessage `json:"prompt"`
	FilePath       json.RawMessage `json:"file_path"`
	Edits          json.RawMessage `json:"edits"`
	Command        json.RawMessage `json:"command"`
	Output         json.RawMessage `json:"output"`
	Trigger        json.RawMessage `json:"trigger"`
}

// newCursor returns the adapter for Cursor's hook protocol.
func newCursor() Adapter { return cursor{} }

func (cursor) Agent() string { return Cursor }

func (cursor) Decode(data []byte, getenv func(string) string) (Event, error) {
	var e cursorEvent
	if err := decodeLenient(data, &e); err != nil {
		return Event{}, err
	}
	// A conversation is a session; sessionStart and sessionEnd also carry
	// its id as session_id.
	ev := Event{Agent: Cursor, Name: text(e.Event), SessionID: text(e.ConversationID), Cwd: text(e.Cwd),
		ProjectDir: getenv("CURSOR_PROJECT_DIR")}
	if ev.SessionID == "" {
		ev.SessionID = text(e.SessionID)
	}
	if ev.ProjectDir == "" {
		var roots []json.RawMessage
		if json.Unmarshal(e.WorkspaceRoots, &roots) == nil && len(roots) > 0 {
			ev.ProjectDir = text(roots[0])
		}
	}
	switch ev.Name {
	case "sessionStart":
		ev.Kind = KindSessionStart
	case "beforeSubmitPrompt":
		ev.Kind, ev.Prompt = KindPrompt, text(e.Prompt)
	case "afterFileEdit":
		in, _ := json.Marshal(map[string]json.RawMessage{"file_path": orNull(e.FilePath), "edits": orNull(e.Edits)})
		ev.Kind, ev.Call = KindTool, captureCall("MultiEdit", in, nil, "")
	case "afterShellExecution":
		in, _ := json.Marshal(map[string]json.RawMessage{"command": orNull(e.Command)})
		resp, _ := json.Marshal(map[string]json.RawMessage{"output": orNull(e.Output)})
		ev.Kind, ev.Call = KindTool, captureCall("Bash", in, resp, "")
	case "preCompact":
		ev.Kind, ev.Source = KindPreCompact, text(e.Trigger)
	case "sessionEnd":
		ev.Kind = KindSessionEnd
	}
	return ev, nil
}

// Encode answers sessionStart with {"additional_context"}; Cursor reads no
// context from its other hooks.
func (cursor) Encode(ev Event, r Reply) []byte {
	if r.Context == "" || ev.Name != "sessionStart" {
		return nil
	}
	return marshal(map[string]string{"additional_context": r.Context})
}
