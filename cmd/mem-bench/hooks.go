package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// hookCase is one event of one agent that `mem hook AGENT` is measured on.
type hookCase struct {
	agent string // the argument of mem hook
	event string // the event's name in the agent's own words
	file  string // fixture under the fixtures folder: AGENT-FOLDER/NAME.json
	// fresh gives each run a session of its own (a prompt would otherwise
	// get an empty answer after the first run: a session never gets the
	// same memory twice; a tool call would be a duplicate). Run i's session
	// is the same for each of the agent's fresh events, so its tool call
	// comes after its prompt, as in a session.
	fresh bool
	// expect is text an answer holding memory contains.
	expect string
}

// agentHooks lists the events measured for each agent: every event the
// agent's adapter does work for. OpenCode's payload is the one mem's own
// plugin sends (internal/agent/opencode.go), so it is built here.
var agentHooks = []hookCase{
	{agent: "claude", event: "SessionStart (startup)", file: "claude-code/session-start-startup.json"},
	{agent: "claude", event: "SessionStart (compact)", file: "claude-code/session-start-compact.json"},
	{agent: "claude", event: "UserPromptSubmit", file: "claude-code/user-prompt-submit.json", fresh: true, expect: "<context "},
	{agent: "claude", event: "PostToolUse (Edit)", file: "claude-code/post-tool-use-edit.json", fresh: true},
	{agent: "claude", event: "PostToolUse (Bash failure)", file: "claude-code/post-tool-use-bash-fail.json", fresh: true},
	{agent: "claude", event: "PreCompact", file: "claude-code/pre-compact.json"},
	{agent: "claude", event: "Stop", file: "claude-code/stop.json", fresh: true},
	{agent: "claude", event: "SessionEnd", file: "claude-code/session-end.json", fresh: true},
	{agent: "codex", event: "SessionStart", file: "codex/session-start.json"},
	{agent: "codex", event: "UserPromptSubmit", file: "codex/user-prompt-submit.json", fresh: true, expect: "<context "},
	{agent: "codex", event: "PostToolUse (apply_patch)", file: "codex/post-tool-use-apply-patch.json", fresh: true},
	{agent: "codex", event: "Stop", file: "codex/stop.json", fresh: true},
	{agent: "gemini", event: "SessionStart", file: "gemini/session-start.json"},
	{agent: "gemini", event: "BeforeAgent", file: "gemini/before-agent.json", fresh: true, expect: "<context "},
	{agent: "gemini", event: "AfterTool", file: "gemini/after-tool.json", fresh: true},
	{agent: "gemini", event: "PreCompress", file: "gemini/pre-compress.json"},
	{agent: "gemini", event: "SessionEnd", file: "gemini/session-end.json", fresh: true},
	{agent: "opencode", event: "session.created", file: "opencode/session.created"},
	{agent: "opencode", event: "system", file: "opencode/system", fresh: true},
	// OpenCode's prompt answers nothing: what it recalls reaches the model
	// through the next system event.
	{agent: "opencode", event: "chat.message", file: "opencode/chat.message", fresh: true},
	{agent: "opencode", event: "tool.execute.after (edit)", file: "opencode/tool.execute.after", fresh: true},
	{agent: "opencode", event: "compacting", file: "opencode/compacting"},
	{agent: "opencode", event: "session.idle", file: "opencode/session.idle", fresh: true},
}

// opencodeSession is the session id of the OpenCode payloads.
const opencodeSession = "ses_5a1f3c9e7ffeY2kqL0wz"

// opencodePayloads are what mem's OpenCode plugin sends for each event.
var opencodePayloads = map[string]map[string]any{
	"session.created": {"event": "session.created", "sessionID": opencodeSession, "directory": "/home/dev/src/shop-api"},
	"system":          {"event": "system", "sessionID": opencodeSession, "directory": "/home/dev/src/shop-api"},
	"chat.message": {"event": "chat.message", "sessionID": opencodeSession, "directory": "/home/dev/src/shop-api",
		"text": "Why do refund retries back off exponentially in the cache handler?"},
	"tool.execute.after": {"event": "tool.execute.after", "sessionID": opencodeSession, "directory": "/home/dev/src/shop-api",
		"tool": "edit", "args": map[string]any{"filePath": "/home/dev/src/shop-api/internal/orders/refund.go",
			"oldString": "maxRetries := 3", "newString": "maxRetries := cfg.Refund.MaxRetries"},
		"output": "", "metadata": map[string]any{"diff": "@@ -10 +10 @@\n-maxRetries := 3\n+maxRetries := cfg.Refund.MaxRetries\n"}},
	"compacting":   {"event": "compacting", "sessionID": opencodeSession, "directory": "/home/dev/src/shop-api"},
	"session.idle": {"event": "session.idle", "sessionID": opencodeSession, "directory": "/home/dev/src/shop-api", "message": "Refund retries now come from the config."},
}

// hookEvent reads the event of h: a fixture file, or for OpenCode the
// plugin's payload.
func hookEvent(fixtures string, h hookCase) (event []byte, session string, err error) {
	if h.agent == "opencode" {
		p, ok := opencodePayloads[filepath.Base(h.file)]
		if !ok {
			return nil, "", fmt.Errorf("no OpenCode payload for %s", h.file)
		}
		b, err := json.Marshal(p)
		return b, opencodeSession, err
	}
	b, err := os.ReadFile(filepath.Join(fixtures, h.file))
	if err != nil {
		return nil, "", fmt.Errorf("-fixtures %s: %w", fixtures, err)
	}
	var ev struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal(b, &ev); err != nil || ev.SessionID == "" {
		return nil, "", fmt.Errorf("%s: no session_id in the event (%v)", h.file, err)
	}
	return b, ev.SessionID, nil
}

// hookBenchCase turns h into a measured path. A fresh case replaces the
// session id with one of its own each run.
func hookBenchCase(fixtures string, h hookCase, stamp int64) (benchCase, error) {
	ev, session, err := hookEvent(fixtures, h)
	if err != nil {
		return benchCase{}, err
	}
	bc := benchCase{name: "hook " + h.agent + " " + h.event, needs: []string{"hook"}, hook: true, ratio: hookRatio,
		expect: h.expect, stdin: ev, args: func(int) []string { return []string{"hook", h.agent} }}
	if h.fresh {
		bc.vary = func(b []byte, i int) []byte {
			return bytes.ReplaceAll(b, []byte(session), []byte(fmt.Sprintf("%s-%d-%d", session, stamp, i)))
		}
	}
	return bc, nil
}
