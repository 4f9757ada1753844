package agent

import "encoding/json"

// opencode speaks to mem's OpenCode plugin (scripts/hooks/opencode), whose
// payload mem defines: {event, sessionID, parentID, directory, agent, text,
// tool, args, output, metadata, error}. The reply is {"context": "..."}.
type opencode struct{}

type opencodeEvent struct {
	Event     json.RawMessage `json:"event"`
	SessionID json.RawMessage `json:"sessionID"`
	ParentID  json.RawMessage `json:"parentID"`
	Directory json.RawMessage `json:"directory"`
	Agent     json.RawMessage `json:"agent"`
	Text      json.RawMessage `json:"text"`
	Tool      json.RawMessage `json:"tool"`
	Args      json.RawMessage `json:"args"`
	Output    json.RawMessage `json:"output"`
	Metadata  json.RawMessage `json:"metadata"`
	Error     json.RawMessage `json:"error"`
	Message   json.RawMessage `json:"message"`
}

// newOpenCode returns the adapter for mem's OpenCode plugin.
func newOpenCode() Adapter { return opencode{} }

func (opencode) Agent() string { return OpenCode }

func (opencode) Decode(data []byte, _ func(string) string) (Event, error) {
	var e opencodeEvent
	if err := decodeLenient(data, &e); err != nil {
		return Event{}, err
	}
	ev := Event{Agent: OpenCode, Name: text(e.Event), SessionID: text(e.SessionID), ParentID: text(e.ParentID),
		Cwd: text(e.Directory), ProjectDir: text(e.Directory), AgentType: text(e.Agent)}
	switch ev.Name {
	case "session.created":
		ev.Kind = KindSessionStart
	case "system":
		ev.Kind = KindSystem
	case "chat.message":
		ev.Kind, ev.Prompt = KindPrompt, text(e.Text)
	case "tool.execute.after":
		ev.Kind = KindTool
		resp, _ := json.Marshal(map[string]json.RawMessage{"output": orNull(e.Output), "metadata": orNull(e.Metadata)})
		ev.Call = captureCall(text(e.Tool), e.Args, resp, text(e.Error))
	case "compacting":
		// It runs before the compaction: checkpoint, then the block.
		ev.Kind, ev.CheckpointFirst = KindCompacted, true
	case "session.idle":
		ev.Kind, ev.Message = KindStop, text(e.Message)
	case "session.deleted":
		ev.Kind = KindSessionEnd
	}
	return ev, nil
}

func (opencode) Encode(ev Event, r Reply) []byte {
	if r.Context == "" {
		return nil
	}
	return marshal(map[string]string{"context": r.Context})
}

func orNull(r json.RawMessage) json.RawMessage {
	if len(r) == 0 {
		return json.RawMessage("null")
	}
	return r
}
