package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/memhq/mem/internal/agent"
	"github.com/memhq/mem/internal/install"
	"github.com/memhq/mem/internal/store"
	"github.com/memhq/mem/internal/text"
)

// agentChecks says, for each agent mem is wired into or has heard from:
// where its hooks and MCP server are, whether the hooks run this mem, and
// when its newest event was recorded. They inform; none fails doctor.
func agentChecks(app *App, activity []store.AgentActivity) []store.Check {
	bin, _ := ownMem()
	last := map[string]store.AgentActivity{}
	for _, a := range activity {
		last[a.Agent] = a
	}
	// Each scope's places are found once (the project scope resolves the
	// project); a scope without them (no project here) is not looked at.
	type scoped struct {
		scope  string
		places install.Places
	}
	var scopes []scoped
	for _, scope := range []string{install.ScopeUser, install.ScopeProject} {
		if places, err := installPlaces(app, scope); err == nil {
			scopes = append(scopes, scoped{scope, places})
		}
	}
	var checks []store.Check
	for _, a := range agent.All() {
		var parts []string
		wired := false
		for _, sc := range scopes {
			hooks, mcp := agentWiring(a.Name, sc.scope, sc.places, bin)
			if hooks != "" {
				parts = append(parts, hooks)
				wired = true
			}
			if mcp != "" {
				parts = append(parts, mcp)
				wired = true
			}
		}
		act, heard := last[a.Adapter.Agent()]
		if !wired && !heard {
			continue
		}
		if !wired {
			parts = append(parts, "not wired (mem install "+a.Name+")")
		}
		if heard {
			parts = append(parts, fmt.Sprintf("last event %s, %s ago (%d sessions)",
				Stamp(act.LastEvent), text.Duration(max(app.Now().Sub(act.LastEvent), 0).Truncate(time.Second)), act.Sessions))
		} else {
			parts = append(parts, "no event recorded yet")
		}
		checks = append(checks, store.Check{Name: "agent " + a.Name, OK: true, Detail: strings.Join(parts, "; ")})
	}
	return checks
}

// agentWiring describes mem's hooks and MCP server in an agent's files of
// scope, found in places ("" for each that is not there): which file, and
// whether the hooks run bin (this mem).
func agentWiring(agent, scope string, places install.Places, bin string) (hooks, mcp string) {
	if path, err := install.Path(agent, scope, places); err == nil {
		if content, err := install.Read(path, places.Root); err == nil && content != nil {
			if p, err := install.Uninstall(agent, path, content, bin); err == nil && p.Changed {
				hooks = "hooks in " + path
				if q, err := install.Install(agent, path, content, bin); err == nil && !q.Changed {
					hooks += " run this mem"
				} else if bin != "" {
					hooks += " run another mem than " + bin + " (mem install " + agent + " points them here)"
				}
			}
		}
	}
	if path, err := install.MCPPath(agent, scope, places); err == nil {
		if content, err := install.Read(path, places.Root); err == nil && content != nil {
			if p, err := install.UninstallMCP(agent, path, content); err == nil && p.Changed {
				mcp = "MCP server in " + path
			}
		}
	}
	return hooks, mcp
}
