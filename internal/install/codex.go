package install

import (
	"path/filepath"
	"time"

	"github.com/memhq/mem/internal/agent"
)

// Codex returns Codex CLI: Claude Code's hook protocol and settings shape, MCP
// servers in its config.toml. Codex runs a user's hook only once it is
// trusted; install records that trust in the user's config.toml, as /hooks
// in Codex's TUI would.
func Codex() Agent {
	return Agent{
		Name: "codex",
		Settings: Paths{
			User:    func(p Places) string { return filepath.Join(codexHome(p), "hooks.json") },
			Project: filepath.Join(".codex", "hooks.json"),
		},
		Hooks: jsonHooks{timeout: int(agent.EditorTimeout / time.Second), events: []hookEvent{
			{"SessionStart", ""}, {"UserPromptSubmit", ""}, {"PostToolUse", ""}, {"Stop", ""}, {"SessionEnd", ""},
		}, limits: map[string]int{"SessionEnd": 3}},
		Trust: &Trust{
			File:   func(p Places) string { return filepath.Join(codexHome(p), "config.toml") },
			Source: codexSource,
			ProjectNote: "Codex runs a project's hooks only once each user trusts them: start codex in the project, " +
				"type /hooks and trust mem's hooks (again after they change; codex exec --dangerously-bypass-hook-trust skips the check)",
		},
		Detect: Detect{Commands: []string{"codex"}, Dirs: func(p Places) []string { return []string{codexHome(p)} }},
		MCPFile: Paths{
			User:    func(p Places) string { return filepath.Join(codexHome(p), "config.toml") },
			Project: filepath.Join(".codex", "config.toml"),
		},
		MCP: codexTOML{},
	}
}

// codexHome is CODEX_HOME, or ~/.codex.
func codexHome(p Places) string {
	if h := p.Getenv("CODEX_HOME"); h != "" {
		return h
	}
	return filepath.Join(p.Home, ".codex")
}
