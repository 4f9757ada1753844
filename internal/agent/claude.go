package agent

import (
	"bytes"
	"encoding/json"

	"github.com/memhq/mem/internal/capture"
)

// claude speaks Claude Code's hook protocol, which Codex CLI shares.
type claude struct {
	agent      string
	projectEnv string
}

type claudeEvent struct {
	SessionID    json.RawMessage `json:"session_id"`
	Cwd          json.RawMessage `json:"cwd"`
	Event        json.RawMessage `json:"hook_event_name"`
	Source       json.RawMessage `json:"source"`
	Prompt       json.RawMessage `json:"prompt"`
	ToolName     json.RawMessage `json:"tool_name"`
	ToolInput    json.RawMessage `json:"tool_input"`
	ToolResponse json.RawMessage `json:"tool_response"`
	Error        json.RawMessage `json:"error"`
	LastMessage  json.RawMessage `json:"last_assistant_message"`
	AgentID      json.RawMessage `json:"agent_id"`
	AgentType    json.RawMessage `json:"agent_type"`
	TurnID       json.RawMessage `json:"turn_id"`         // Codex
	Transcript   json.RawMessage `json:"transcript_path"` // Codex
	Timestamp    json.RawMessage `json:"timestamp"`       // Copilot; Claude Code sends none
}

// call is the tool call a tool event reports.
func (e claudeEvent) call() capture.Call {
	return capture.Call{Tool: text(e.ToolName), Input: e.ToolInput, Response: e.ToolResponse, Error: text(e.Error)}
}

// newClaude returns the adapter for Claude Code's hook protocol, which Codex CLI
// shares: agent is the name sessions.agent records, projectEnv the variable
// that names the project root ("" when the agent sets none).
func newClaude(agent, projectEnv string) Adapter { return claude{agent: agent, projectEnv: projectEnv} }

func (c claude) Agent() string { return c.agent }

func (c claude) Decode(data []byte, getenv func(string) string) (Event, error) {
	var e claudeEvent
	if err := decodeLenient(data, &e); err != nil {
		return Event{}, err
	}
	ev := e.event(c.agent)
	if c.agent == ClaudeCode && e.Timestamp != nil && getenv("COPILOT_CLI") != "" {
		// Copilot CLI runs a project's .claude hooks too, after its own,
		// with its own payload: the event is Copilot's, and `mem hook
		// copilot` records it. Taken here as well, it would be recorded
		// twice, or as Claude Code's without its tool results.
		ev.Kind = KindIgnored
		return ev, nil
	}
	ev.AgentType = text(e.AgentType)
	ev.ContextAfterTool = c.agent == ClaudeCode && ev.Kind == KindTool // Codex takes none there
	if c.projectEnv != "" {
		ev.ProjectDir = getenv(c.projectEnv)
	}
	// A subagent's events carry the parent's session id and its own agent id:
	// it gets a session of its own, attached to the parent.
	if id := text(e.AgentID); id != "" && ev.SessionID != "" {
		ev.ParentID = ev.SessionID
		ev.SessionID = ev.SessionID + ":" + id
	}
	switch ev.Name {
	case "SessionStart":
		if ev.Source == "compact" {
			ev.Kind = KindCompacted
		}
	case "Stop":
		ev.Message = text(e.LastMessage)
		if c.agent == Codex {
			ev.Transcript, ev.TurnID = text(e.Transcript), text(e.TurnID)
		}
	case "SubagentStop":
		ev.Kind, ev.Message = KindSubagentStop, text(e.LastMessage)
		if ev.ParentID != "" && ev.AgentType == "" {
			// Claude Code's /compact runs as a subagent of no type: a
			// compaction, neither a session nor memory.
			ev.Kind = KindIgnored
		}
	}
	return ev, nil
}

// event reads what Claude Code, Codex and Copilot (under its PascalCase
// event names) send alike: the event's name and kind, its session, and the
// prompt or tool call it carries. Each adapter adds its agent's own fields.
func (e claudeEvent) event(agent string) Event {
	ev := Event{Agent: agent, Name: text(e.Event), SessionID: text(e.SessionID), Cwd: text(e.Cwd),
		Source: text(e.Source)}
	switch ev.Name {
	case "SessionStart":
		ev.Kind = KindSessionStart
	case "UserPromptSubmit":
		ev.Kind, ev.Prompt = KindPrompt, text(e.Prompt)
	case "PostToolUse", "PostToolUseFailure":
		ev.Kind, ev.Call = KindTool, e.call()
		ev.Call.Failed = ev.Name == "PostToolUseFailure"
	case "PreCompact":
		ev.Kind = KindPreCompact
	case "Stop":
		ev.Kind = KindStop
	case "SessionEnd":
		ev.Kind = KindSessionEnd
	}
	return ev
}

// Encode answers with hookSpecificOutput.additionalContext where the event
// accepts context, and with nothing otherwise.
func (c claude) Encode(ev Event, r Reply) []byte {
	if r.Context == "" {
		return nil
	}
	switch ev.Name {
	case "SessionStart", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure":
	default:
		return nil
	}
	return additionalContext(ev.Name, r.Context)
}

func additionalContext(event, ctx string) []byte {
	return marshal(map[string]any{"hookSpecificOutput": map[string]string{
		"hookEventName": event, "additionalContext": ctx}})
}

// marshal encodes a reply without escaping <, > and & (recall blocks are XML).
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
