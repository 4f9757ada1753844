package install

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/memhq/mem/internal/agent"
)

// Copilot returns GitHub Copilot CLI. Its hooks go into a hooks file of
// mem's own among those Copilot reads (~/.copilot/hooks/*.json,
// .github/hooks/*.json), under the PascalCase event names, whose payload
// names the event and whose prompt hook may add context. PostToolUse has
// no matcher: under these names Copilot reports its tools by Claude's names.
func Copilot() Agent {
	return Agent{
		Name: "copilot",
		Settings: Paths{
			User:    func(p Places) string { return filepath.Join(copilotHome(p), "hooks", "mem.json") },
			Project: filepath.Join(".github", "hooks", "mem.json"),
		},
		Hooks: flatHooks{key: "bash", events: []hookEvent{
			{"SessionStart", ""}, {"UserPromptSubmit", ""}, {"PostToolUse", ""}, {"PostToolUseFailure", ""},
			{"PreCompact", ""}, {"Stop", ""}, {"SessionEnd", ""},
		}, entry: func(cmd string) *object {
			e := newObject()
			e.set("type", "command")
			e.set("bash", cmd)
			e.set("timeoutSec", json.Number(fmt.Sprint(int(agent.EditorTimeout/time.Second))))
			return e
		}},
		Notes: []string{"Copilot runs a repository's hooks (.github/hooks) and MCP servers only in a folder you trusted; " +
			"with copilot -p, set GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=true for project-scope hooks"},
		Detect: Detect{Commands: []string{"copilot"}, Dirs: func(p Places) []string { return []string{copilotHome(p)} }},
		MCPFile: Paths{
			User:    func(p Places) string { return filepath.Join(copilotHome(p), "mcp-config.json") },
			Project: filepath.Join(".github", "mcp.json"),
		},
		MCP: jsonMCP{key: "mcpServers", entry: func(bin string, args []string) *object {
			e := newObject()
			e.set("type", "local")
			e.set("command", bin)
			e.set("args", list(args))
			e.set("tools", []any{"*"})
			return e
		}},
	}
}

// copilotHome is COPILOT_HOME, or ~/.copilot.
func copilotHome(p Places) string {
	if h := p.Getenv("COPILOT_HOME"); h != "" {
		return h
	}
	return filepath.Join(p.Home, ".copilot")
}
