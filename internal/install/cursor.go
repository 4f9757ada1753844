package install

import (
	"path/filepath"
)

// Cursor returns Cursor (the editor's agent and cursor-agent), built from
// its documented hooks and MCP configuration (cursor.com/docs/agent/hooks,
// cursor.com/docs/mcp): a hooks.json of version 1 with a list of
// {"command"} entries per event, MCP servers under "mcpServers". Capture
// reads its edit and shell events; sessionStart is where it takes context.
func Cursor() Agent {
	return Agent{
		Name: "cursor",
		Settings: Paths{
			User:    func(p Places) string { return filepath.Join(p.Home, ".cursor", "hooks.json") },
			Project: filepath.Join(".cursor", "hooks.json"),
		},
		Hooks: flatHooks{key: "command", events: []hookEvent{
			{"sessionStart", ""}, {"beforeSubmitPrompt", ""}, {"afterFileEdit", ""}, {"afterShellExecution", ""},
			{"preCompact", ""}, {"sessionEnd", ""},
		}, entry: func(cmd string) *object {
			e := newObject()
			e.set("command", cmd)
			return e
		}},
		Detect: Detect{Commands: []string{"cursor-agent", "cursor"}, Dirs: func(p Places) []string {
			return []string{filepath.Join(p.Home, ".cursor")}
		}},
		MCPFile: Paths{
			User:    func(p Places) string { return filepath.Join(p.Home, ".cursor", "mcp.json") },
			Project: filepath.Join(".cursor", "mcp.json"),
		},
		MCP: jsonMCP{key: "mcpServers", entry: func(bin string, args []string) *object {
			e := newObject()
			e.set("command", bin)
			e.set("args", list(args))
			return e
		}},
	}
}
