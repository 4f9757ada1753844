package install

import (
	"path/filepath"
	"time"

	"github.com/memhq/mem/internal/agent"
)

// Claude returns Claude Code. Its PostToolUse fires for every tool; the matcher
// keeps the hook process for the tools capture reads.
func Claude() Agent {
	return Agent{
		Name: "claude",
		Settings: Paths{
			User:    func(p Places) string { return filepath.Join(p.Home, ".claude", "settings.json") },
			Project: filepath.Join(".claude", "settings.json"),
		},
		Hooks: jsonHooks{timeout: int(agent.EditorTimeout / time.Second), events: []hookEvent{
			{"SessionStart", ""}, {"UserPromptSubmit", ""},
			{"PostToolUse", "Edit|MultiEdit|Write|NotebookEdit|Bash|Read|Grep|Glob"},
			{"PostToolUseFailure", "Edit|MultiEdit|Write|NotebookEdit|Bash"},
			{"PreCompact", ""}, {"Stop", ""}, {"SubagentStop", ""}, {"SessionEnd", ""},
		}},
		Detect: Detect{Commands: []string{"claude"}, Dirs: func(p Places) []string {
			return []string{filepath.Join(p.Home, ".claude")}
		}},
		MCPFile: Paths{
			User:    func(p Places) string { return filepath.Join(p.Home, ".claude.json") },
			Project: ".mcp.json",
		},
		MCP: jsonMCP{key: "mcpServers", entry: func(bin string, args []string) *object {
			e := newObject()
			e.set("type", "stdio")
			e.set("command", bin)
			e.set("args", list(args))
			return e
		}},
	}
}
