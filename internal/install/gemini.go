package install

import (
	"path/filepath"
	"time"

	"github.com/memhq/mem/internal/agent"
)

// Gemini returns Gemini CLI: Claude-like settings under its own event names,
// hook entries named, timeouts in milliseconds. The AfterTool matcher
// names each tool under its current name and its older one (grep_search,
// before 0.61 search_file_content).
func Gemini() Agent {
	return Agent{
		Name: "gemini",
		Settings: Paths{
			User:    func(p Places) string { return filepath.Join(p.Home, ".gemini", "settings.json") },
			Project: filepath.Join(".gemini", "settings.json"),
		},
		Hooks: jsonHooks{timeout: int(agent.EditorTimeout / time.Millisecond), named: true, events: []hookEvent{
			{"SessionStart", ""}, {"BeforeAgent", ""},
			{"AfterTool", "replace|write_file|run_shell_command|read_file|read_many_files|glob|grep_search|search_file_content|list_directory"},
			{"PreCompress", ""}, {"AfterAgent", ""}, {"SessionEnd", ""},
		}},
		Detect: Detect{Commands: []string{"gemini"}, Dirs: func(p Places) []string {
			return []string{filepath.Join(p.Home, ".gemini")}
		}},
		MCPFile: Paths{
			User:    func(p Places) string { return filepath.Join(p.Home, ".gemini", "settings.json") },
			Project: filepath.Join(".gemini", "settings.json"),
		},
		MCP: jsonMCP{key: "mcpServers", entry: func(bin string, args []string) *object {
			e := newObject()
			e.set("command", bin)
			e.set("args", list(args))
			return e
		}},
	}
}
