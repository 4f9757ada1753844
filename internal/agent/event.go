// Package agent is what mem knows of each agent it works with below the
// hook and the installer: the registry of agents (names, aliases) and, for
// each, the adapter that speaks its hook protocol. An adapter decodes the
// event an editor writes on stdin into an Event (leniently: unknown fields
// are ignored and missing ones tolerated) and encodes the Reply the editor
// expects; internal/hook handles the event, internal/install writes the
// agent's settings.
package agent

import (
	"encoding/json"
	"errors"

	"github.com/memhq/mem/internal/capture"
)

// Kind is what an event means, whatever the agent calls it.
type Kind string

// Event kinds.
const (
	KindSessionStart Kind = "session-start" // a session starts, resumes or is cleared
	KindCompacted    Kind = "compacted"     // the context was (or is being) compacted: give the compaction block
	KindPrompt       Kind = "prompt"        // the user submitted a prompt
	KindTool         Kind = "tool"          // a tool call finished (or failed)
	KindPreCompact   Kind = "pre-compact"   // compaction is about to happen: checkpoint
	KindStop         Kind = "stop"          // the agent finished a turn
	KindSubagentStop Kind = "subagent-stop" // a subagent finished
	KindSessionEnd   Kind = "session-end"   // the session ends
	KindSystem       Kind = "system"        // OpenCode asks for the session's block again
	KindIgnored      Kind = ""              // an event mem has nothing to do for
)

// Agent names, as stored in sessions.agent.
const (
	ClaudeCode = "claude-code"
	Codex      = "codex"
	Gemini     = "gemini"
	OpenCode   = "opencode"
)

// Event is an editor event in mem's terms.
type Event struct {
	Agent      string
	Name       string // the agent's own event name, for replies and logs
	Kind       Kind
	SessionID  string
	ParentID   string // the parent session of a subagent's session
	AgentType  string
	Cwd        string
	ProjectDir string // the editor's project root, when it says
	Source     string // startup, resume, clear, compact
	Prompt     string
	Call       capture.Call
	Message    string // the agent's last message (Stop, AfterAgent)
	// Transcript and TurnID name, at a Codex Stop, where the turn's edits
	// that no tool event reported are (apply_patch run through its shell);
	// they are read when the event is recorded, only with capture on.
	// Gemini CLI's events name their transcript too (see CompactionUnsure).
	Transcript string `json:",omitempty"`
	TurnID     string `json:",omitempty"`
	// CompactionUnsure is set on a pre-compact event that may or may not
	// be followed by a compaction (Gemini CLI's automatic PreCompress
	// fires on every turn, before it checks its threshold): where
	// Transcript ends now is noted on the session, and the next event that
	// sets CompactionSettled reads what the agent appended since. When that
	// shows a compaction, the session is marked as a pre-compact event with
	// CompactionAtPrompt marks it; otherwise nothing is given.
	CompactionUnsure  bool `json:",omitempty"`
	CompactionSettled bool `json:",omitempty"`
	// TranscriptSize is the size of Transcript when a CompactionUnsure
	// event arrived (read by the hook before it records or spools the
	// event); -1 when it could not be read.
	TranscriptSize int64 `json:",omitempty"`
	// CompactionAtPrompt is set by the adapter of an agent that takes no
	// context when it compacts: the compaction block waits, marked on the
	// session, for the next prompt. A pre-compact event that sets it marks
	// the session (one that may not compact leaves it unset), a prompt
	// (or a tool event whose reply reaches the model) takes the mark and
	// gives the block, a session start drops it.
	CompactionAtPrompt bool `json:",omitempty"`
	// CheckpointFirst is set on a compacted event that comes before the
	// compaction rather than after it: the session is checkpointed first.
	CheckpointFirst bool `json:",omitempty"`
	// ContextAfterTool is set by the adapter of an agent whose reply to
	// this tool event reaches the model: the files' context is given (and
	// consumed) with it, not left pending for the next prompt.
	ContextAfterTool bool `json:",omitempty"`
}

// Reply is what mem answers.
type Reply struct {
	// Context is text for the agent's context; empty for none.
	Context string
}

// Adapter speaks one agent's hook protocol.
type Adapter interface {
	// Agent is the agent's name (sessions.agent).
	Agent() string
	// Decode reads an event; getenv gives the hook's environment.
	Decode(data []byte, getenv func(string) string) (Event, error)
	// Encode renders a reply, or returns nil when the agent wants no output.
	Encode(ev Event, r Reply) []byte
}

// ErrEmpty is returned for an empty event.
var ErrEmpty = errors.New("empty event")

// decodeLenient unmarshals data into v, accepting fields of the wrong type
// (they are left empty) but not malformed JSON.
func decodeLenient(data []byte, v any) error {
	if len(data) == 0 {
		return ErrEmpty
	}
	err := json.Unmarshal(data, v)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return nil // a field of the wrong type: left empty
	}
	return err
}

// text reads a JSON value that should be a string; anything else is "".
func text(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return ""
}

func captureCall(tool string, input, response json.RawMessage, errText string) capture.Call {
	return capture.Call{Tool: tool, Input: input, Response: response, Failed: errText != "", Error: errText}
}
