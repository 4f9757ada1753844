package install

import (
	"fmt"
	"path/filepath"

	"github.com/memhq/mem/internal/agent"
)

// Agent is what mem installs for one agent of the registry
// (internal/agent): its settings file, how mem's hooks are merged into it,
// its MCP file, trust and detection. An agent is its line in agent.All, a
// file like claude.go here and its case in forAgent; mem install,
// install-mcp and hook, and their usage, follow.
type Agent struct {
	Name     string   // the agent's name in the registry
	Settings Paths    // the file mem's hooks go into
	Hooks    Hooks    // how they are merged into it
	Notes    []string // printed after install
	Trust    *Trust   // where the agent keeps trust in mem's hooks, if it asks for it
	MCPFile  Paths    // the file its MCP servers are listed in
	MCP      MCP      // how mem's server entry is written there
	Detect   Detect   // how mem install with no agent named finds it
}

// forAgent is what mem installs for the registry's agent of that name.
func forAgent(name string) (Agent, bool) {
	switch name {
	case "claude":
		return Claude(), true
	case "codex":
		return Codex(), true
	case "gemini":
		return Gemini(), true
	case "opencode":
		return OpenCode(), true
	case "copilot":
		return Copilot(), true
	case "cursor":
		return Cursor(), true
	}
	return Agent{}, false
}

// All is what mem installs for every agent, in the registry's order.
func All() []Agent {
	var all []Agent
	for _, r := range agent.All() {
		if a, ok := forAgent(r.Name); ok {
			all = append(all, a)
		}
	}
	return all
}

// Lookup finds what mem installs for an agent by its name or an alias.
func Lookup(name string) (Agent, bool) {
	r, ok := agent.Lookup(name)
	if !ok {
		return Agent{}, false
	}
	return forAgent(r.Name)
}

// Paths says where a file is for each scope.
type Paths struct {
	User    func(Places) string
	Project string // relative to the project root
}

// For returns the file for scope.
func (ps Paths) For(scope string, p Places) (string, error) {
	switch scope {
	case ScopeUser:
		return ps.User(p), nil
	case ScopeProject:
		return filepath.Join(p.Root, ps.Project), nil
	}
	return "", fmt.Errorf("scope %q: want user or project", scope)
}

// Hooks merges mem's hooks into an agent's settings and takes them out:
// jsonHooks for a JSON file of hook groups, opencodePlugin for a file of
// mem's own. An agent whose settings have another shape gets a Hooks of
// its own beside these.
type Hooks interface {
	// install sets p.After (and p.Changed) to p.Before with mem's hooks,
	// running bin hook arg.
	install(p *Plan, arg, bin string) error
	// uninstall sets p.After (nil: remove the file) and p.Changed to
	// p.Before without them; p.Before is not nil.
	uninstall(p *Plan, arg, bin string) error
}

// MCP writes mem's MCP server entry into an agent's configuration, or
// takes it out: jsonMCP or codexTOML.
type MCP interface {
	// edit sets p.After and p.Changed for p.Before with mem's entry (bin
	// run with args), or without it when remove.
	edit(p *Plan, bin string, args []string, remove bool) error
}
