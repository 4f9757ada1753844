package cli

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"

	"github.com/memhq/mem/internal/agent"
	"github.com/memhq/mem/internal/agentmem"
	"github.com/memhq/mem/internal/install"
)

// wired is what mem install with no agent named did for one agent.
type wired struct {
	Agent  string      `json:"agent"`
	Found  string      `json:"found"`
	Files  []wiredFile `json:"files,omitempty"`
	Notes  []string    `json:"notes,omitempty"`
	Error  string      `json:"error,omitempty"`
	plans  []install.Plan
	failed error
}

// wiredFile is one file written (or that would be) for an agent.
type wiredFile struct {
	What    string `json:"what"` // "hooks", "MCP server" or "hooks and MCP server"
	Path    string `json:"path"`
	Changed bool   `json:"changed"`
	Backup  string `json:"backup,omitempty"`
}

// runInstallAll finds the agents on this machine and wires each one:
// mem's hooks and its MCP server, in the scope asked for. One agent whose
// file is refused does not stop the others; the exit code is then that of
// the first refusal.
func runInstallAll(app *App, o installOptions) error {
	if o.Scope != install.ScopeUser && o.Scope != install.ScopeProject {
		return Invalid("--scope", "user or project", o.Scope)
	}
	bin, err := memBinary(o.Bin, "--bin")
	if err != nil {
		return err
	}
	places, err := installPlaces(app, install.ScopeUser)
	if err != nil {
		return err
	}
	found := install.DetectAll(install.Machine{Places: places, GOOS: runtime.GOOS})
	if len(found) == 0 {
		return errors.New("found no agent on this machine (" + lookedFor(places) + "); name one: mem install " +
			strings.Join(agent.Names(), "|"))
	}
	var out []wired
	for _, f := range found {
		out = append(out, wireAgent(app, f, o, bin))
	}
	return reportAgents(app, out, o.DryRun, printWired, "wired")
}

// reportAgents prints what mem install or uninstall did for each agent (as
// JSON, or with print) and returns the first agent's failure, if any, with
// how many failed: the others were still seen to.
func reportAgents(app *App, out []wired, dryRun bool, print func(*App, []wired, bool), done string) error {
	if app.JSON {
		if err := PrintJSON(app.Out, map[string]any{"dry_run": dryRun, "agents": out}); err != nil {
			return err
		}
	} else {
		print(app, out, dryRun)
	}
	var first error
	failed := 0
	for _, w := range out {
		if w.failed != nil {
			failed++
			if first == nil {
				first = w.failed
			}
		}
	}
	if first != nil {
		return &exitError{code: ExitCode(first), err: first,
			msg: fmt.Sprintf("%d of %d agents were not %s: %s", failed, len(out), done, oneLine(first.Error()))}
	}
	return nil
}

// lookedFor says, for the message when no agent is found, where mem looked.
func lookedFor(p install.Places) string {
	var cmds, dirs []string
	for _, a := range install.All() {
		cmds = append(cmds, a.Detect.Commands...)
		if a.Detect.Dirs != nil {
			dirs = append(dirs, a.Detect.Dirs(p)...)
		}
	}
	return "no " + strings.Join(cmds, ", ") + " on PATH, no " + strings.Join(dirs, ", ")
}

// wireAgent installs mem's hooks and MCP server for one agent. When both
// go into the same file (Gemini), that file is written once, with one
// backup of what it held before.
func wireAgent(app *App, f install.Found, o installOptions, bin string) wired {
	w := wired{Agent: f.Agent.Name, Found: f.Why, Notes: f.Agent.NotesFor(o.Scope)}
	fail := func(err error) wired {
		w.failed, w.Error = err, oneLine(err.Error())
		return w
	}
	path, root, before, err := installTarget(app, f.Agent.Name, o.Scope, install.Path)
	if err != nil {
		return fail(err)
	}
	hooks, err := install.Install(f.Agent.Name, path, before, bin)
	if err != nil {
		return fail(UsageErr(err))
	}
	mpath, _, mbefore, err := installTarget(app, f.Agent.Name, o.Scope, install.MCPPath)
	if err != nil {
		return fail(err)
	}
	if mpath == path {
		mbefore = hooks.After
	}
	mcp, err := install.InstallMCP(f.Agent.Name, mpath, mbefore, bin, []string{"mcp"})
	if err != nil {
		return fail(UsageErr(err))
	}
	// The trust an agent needs in mem's hooks (Codex) is recorded as mem
	// install AGENT records it, on top of the MCP server when both go into
	// the same file.
	trust, err := trustPlan(app, installOptions{Agent: f.Agent.Name, Scope: o.Scope}, hooks, bin, false,
		func(p string) ([]byte, error) {
			if p == mpath {
				return mcp.After, nil
			}
			return readFile(p)
		})
	if err != nil {
		return fail(err)
	}
	mcpWhat := "MCP server"
	if trust != nil && trust.Path == mpath {
		mcp, mcpWhat, trust = trust.Over(mcp.Before), "MCP server and hook trust", nil
	}
	if mpath == path {
		mcp = mcp.Over(before)
		w.plans = []install.Plan{mcp}
		w.Files = []wiredFile{{What: "hooks and " + mcpWhat, Path: path, Changed: mcp.Changed}}
	} else {
		w.plans = []install.Plan{hooks, mcp}
		w.Files = []wiredFile{{What: "hooks", Path: path, Changed: hooks.Changed}, {What: mcpWhat, Path: mpath, Changed: mcp.Changed}}
	}
	if trust != nil {
		w.plans = append(w.plans, *trust)
		w.Files = append(w.Files, wiredFile{What: "hook trust", Path: trust.Path, Changed: trust.Changed})
	}
	for i, p := range w.plans {
		backup, err := applyPlan(p, root, o.DryRun, uninstallClean(app, f.Agent.Name, o.Scope, p.Path, bin))
		if err != nil {
			return fail(err)
		}
		w.Files[i].Backup = backup
	}
	return w
}

func printWired(app *App, ws []wired, dryRun bool) {
	for _, w := range ws {
		fmt.Fprintf(app.Out, "%s (%s):\n", w.Agent, w.Found)
		for _, f := range w.Files {
			switch {
			case !f.Changed:
				fmt.Fprintf(app.Out, "  %s: already in %s, nothing to change\n", f.What, f.Path)
			case dryRun:
				fmt.Fprintf(app.Out, "  %s: would write %s\n", f.What, f.Path)
			default:
				fmt.Fprintf(app.Out, "  %s: written to %s\n", f.What, f.Path)
				if f.Backup != "" {
					fmt.Fprintf(app.Out, "    previous file kept as %s\n", f.Backup)
				}
			}
		}
		if w.Error != "" {
			fmt.Fprintf(app.Out, "  not wired: %s\n", w.Error)
			continue
		}
		for _, n := range w.Notes {
			fmt.Fprintf(app.Out, "  still to do: %s\n", n)
		}
	}
	if dryRun {
		fmt.Fprintf(app.Out, "dry run: nothing was written; mem install <agent> --dry-run prints an agent's file whole\n")
		return
	}
	fmt.Fprintf(app.Out, "agents read these files when a session starts: start a new session in each\n")
	var names []string
	for _, w := range ws {
		if w.Error == "" {
			names = append(names, w.Agent)
		}
	}
	if n := importNote(names); n != "" {
		fmt.Fprintf(app.Out, "%s\n", n)
	}
}

// importNote says that what the agents already remember themselves comes
// into mem, and how to read it now; "" when none of them keeps a memory of
// its own that mem reads.
func importNote(agents []string) string {
	var from []string
	for _, a := range agents {
		if slices.Contains(agentmem.Kinds, a) && !slices.Contains(from, a) {
			from = append(from, a)
		}
	}
	if len(from) == 0 {
		return ""
	}
	list := strings.Join(from, ",")
	return "the agents' own memories (" + strings.Join(from, ", ") + ") come into mem at each session start of a project; mem import --from " + list + " reads them now"
}
