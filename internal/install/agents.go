package install

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/memhq/mem/internal/hook"
	"github.com/memhq/mem/internal/lazy"
)

// Agent is one agent mem works with and all mem knows about it. An agent is
// a file like claude.go and its line in All; mem install, install-mcp and
// hook, and their usage, follow from the list.
type Agent struct {
	Name     string       // what mem install, install-mcp and hook take
	Aliases  []string     // other names they accept
	Adapter  hook.Adapter // speaks its hook protocol
	Settings Paths        // the file mem's hooks go into
	Hooks    Hooks        // how they are merged into it
	Notes    []string     // printed after install
	Trust    *Trust       // where the agent keeps trust in mem's hooks, if it asks for it
	MCPFile  Paths        // the file its MCP servers are listed in
	MCP      MCP          // how mem's server entry is written there
	Detect   Detect       // how mem install with no agent named finds it
}

// All is every agent, in the order usage lists them. It is built on first
// use: a call that needs no agent pays nothing at start.
var All = lazy.Value[[]Agent]{New: func() []Agent { return []Agent{Claude(), Codex(), Gemini(), OpenCode(), Copilot(), Cursor()} }}

// Lookup finds an agent by its name or an alias.
func Lookup(name string) (Agent, bool) {
	for _, a := range All.Get() {
		if a.Name == name || slices.Contains(a.Aliases, name) {
			return a, true
		}
	}
	return Agent{}, false
}

// Names are the agents' names, in the order of All.
func Names() []string {
	names := make([]string, len(All.Get()))
	for i, a := range All.Get() {
		names[i] = a.Name
	}
	return names
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
