package agent

import (
	"slices"
	"time"
)

// Agent is one agent mem works with, as the hook and the installer name
// it. What mem install writes for it is in internal/install, under the
// same name.
type Agent struct {
	Name    string   // what mem install, install-mcp and hook take
	Aliases []string // other names they accept
	Adapter Adapter  // speaks its hook protocol
}

// All is every agent, in the order usage lists them.
func All() []Agent {
	return []Agent{
		{Name: "claude", Aliases: []string{"claude-code"}, Adapter: newClaude(ClaudeCode, "CLAUDE_PROJECT_DIR")},
		{Name: "codex", Adapter: newClaude(Codex, "")},
		{Name: "gemini", Adapter: newGemini()},
		{Name: "opencode", Adapter: newOpenCode()},
		{Name: "copilot", Aliases: []string{"copilot-cli", "github-copilot"}, Adapter: newCopilot()},
		{Name: "cursor", Aliases: []string{"cursor-agent"}, Adapter: newCursor()},
	}
}

// Lookup finds an agent by its name or an alias.
func Lookup(name string) (Agent, bool) {
	for _, a := range All() {
		if a.Name == name || slices.Contains(a.Aliases, name) {
			return a, true
		}
	}
	return Agent{}, false
}

// Names are the agents' names, in the order of All.
func Names() []string {
	var names []string
	for _, a := range All() {
		names = append(names, a.Name)
	}
	return names
}

// EditorTimeout is the timeout mem install gives the editors for a hook:
// past it the editor kills the process.
const EditorTimeout = 5 * time.Second
