package hook

// Adapters gives the fixture tests an adapter per `mem hook` argument, as
// the agent list in internal/install sets them up (that package imports
// this one, so its list cannot be used here).
func Adapters() map[string]Adapter {
	return map[string]Adapter{
		"claude":      Claude(AgentClaude, "CLAUDE_PROJECT_DIR"),
		"claude-code": Claude(AgentClaude, "CLAUDE_PROJECT_DIR"),
		"codex":       Claude(AgentCodex, ""),
		"gemini":      Gemini(),
		"opencode":    OpenCode(),
		"copilot":     Copilot(),
		"cursor":      Cursor(),
	}
}
