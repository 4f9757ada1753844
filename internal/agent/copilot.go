package agent

import (
	"encoding/json"
	"strconv"

	"github.com/memhq/mem/internal/lazy"
)

// Copilot is GitHub Copilot CLI in sessions.agent.
const Copilot = "copilot"

// copilot speaks GitHub Copilot CLI's hook protocol in the form its
// PascalCase event names select (SessionStart, UserPromptSubmit,
// PostToolUse, ...): Claude Code's snake_case fields, tools under Claude's
// names with Copilot's own arguments, a tool's result as tool_result
// {result_type, text_result_for_llm}, and a reply of {"additionalContext"}.
// Its camelCase form carries no event name and drops the context a prompt
// hook returns, so mem installs the PascalCase names.
type copilot struct{}

type copilotEvent struct {
	claudeEvent
	ToolResult json.RawMessage `json:"tool_result"`
	Trigger    json.RawMessage `json:"trigger"`
}

// newCopilot returns the adapter for GitHub Copilot CLI's hook protocol.
func newCopilot() Adapter { return copilot{} }

func (copilot) Agent() string { return Copilot }

func (copilot) Decode(data []byte, _ func(string) string) (Event, error) {
	var e copilotEvent
	if err := decodeLenient(data, &e); err != nil {
		return Event{}, err
	}
	// Claude's events (SessionStart's source is startup, resume or new),
	// less Claude's subagents, agent type and last message (Copilot gives
	// none), and with Copilot's tool result.
	ev := e.event(Copilot)
	switch ev.Kind {
	case KindTool:
		ev.Call.Response = copilotResult(e.ToolResult)
		ev.ContextAfterTool = ev.Name == "PostToolUse"
	case KindPreCompact:
		// Copilot takes no context here, and every PreCompact, manual or
		// automatic, compacts: checkpoint, and give the compaction block
		// with the next prompt.
		ev.Source, ev.CompactionAtPrompt = text(e.Trigger), true
	case KindSessionStart, KindPrompt:
		ev.CompactionAtPrompt = true
	}
	return ev, nil
}

// copilotExit is the line Copilot's shell tool ends a command's result with
// (1.0.102: "<shellId: 0 completed with exit code 1>").
var copilotExit = lazy.NewRegexp(`<shellId: [^>]* completed with exit code (-?\d+)>\s*$`)

// copilotResult turns a tool_result into the {output, exit_code} capture
// reads; anything else is passed on as it is.
func copilotResult(raw json.RawMessage) json.RawMessage {
	var r struct {
		Text json.RawMessage `json:"text_result_for_llm"`
	}
	if json.Unmarshal(raw, &r) != nil || r.Text == nil {
		return raw
	}
	output := text(r.Text)
	out := map[string]any{"output": output}
	if m := copilotExit.Get().FindStringSubmatch(output); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil {
			out["exit_code"] = n
		}
	}
	b, _ := json.Marshal(out)
	return b
}

// Encode answers with {"additionalContext"} where Copilot takes context: at
// session start, with a prompt (Copilot adds it to the prompt as a
// reminder) and after a successful tool call (appended to its result).
func (copilot) Encode(ev Event, r Reply) []byte {
	if r.Context == "" {
		return nil
	}
	switch ev.Name {
	case "SessionStart", "UserPromptSubmit", "PostToolUse":
		return marshal(map[string]string{"additionalContext": r.Context})
	}
	return nil
}
