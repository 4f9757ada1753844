package cli

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memhq/mem/internal/agent"
	"github.com/memhq/mem/internal/install"
)

type installOptions struct {
	Agent  string
	Scope  string
	DryRun bool
	Bin    string
}

func newInstallCmd(app *App, remove bool) *cobra.Command {
	var o installOptions
	use, short := "install", "Set an agent up to run mem's hooks (merged into its own settings file)"
	long := `With no agent named, find the agents on this machine (their command on PATH or their settings
folder) and wire each one: its hooks as below and mem's MCP server as install-mcp writes it, then say
per agent what was written and what is left to do (Codex: trust the hooks). --dry-run lists the files
it would write and writes nothing. Detected by (command, folder):
` + agentDetect() + `

With an agent named, merge mem's hook entries into the agent's settings file, keeping everything
else in it, or write mem's OpenCode plugin (its MCP server: mem install-mcp). Running it again changes
nothing; the previous file is kept as <file>.mem.bak. A settings file or backup that is a link, FIFO
or device, or a project folder that leads out of the project, is refused and nothing is written.
Codex runs a user's hooks only once they are trusted: in user scope, install also records that
trust for exactly the hooks it added in Codex's config.toml, as /hooks in Codex would (mem doctor
checks it). Settings files (user scope, project scope):
` + agentFiles(func(a install.Agent) install.Paths { return a.Settings })
	if remove {
		use, short = "uninstall", "Remove exactly what mem install added to an agent's settings"
		long = `With no agent named, take mem out of every agent it is wired into: hooks, MCP server and the
hook trust, as mem install with no agent named put them in; --dry-run lists what would go.

With an agent named, remove mem's hook entries (and the groups and events they leave empty) from the
agent's settings file, or mem's OpenCode plugin. Everything else in the file stays. For Codex it also
takes out the trust install recorded for those hooks. Links, FIFOs and devices are refused as by
install.

Backups: install keeps the file it replaced as <file>.mem.bak. Uninstall writes none: when nothing
else in the file changed since install, it puts that backup back byte for byte; otherwise it takes
mem's entries out and keeps the rest. Once the file holds nothing of mem's, the backup is removed.`
	}
	cmd := &cobra.Command{
		Short:     short,
		Long:      long,
		Args:      cobra.MaximumNArgs(1),
		ValidArgs: agent.Names(),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 0 && remove:
				return runUninstallAll(app, o)
			case len(args) == 0:
				return runInstallAll(app, o)
			}
			o.Agent = args[0]
			return runInstall(app, o, remove)
		},
	}
	cmd.Use = use + " [" + strings.Join(agent.Names(), "|") + "]"
	f := cmd.Flags()
	f.StringVar(&o.Scope, "scope", install.ScopeUser, "user (your settings) or project (the project's settings, to commit)")
	f.BoolVar(&o.DryRun, "dry-run", false, "print the resulting file instead of writing it")
	if remove {
		f.StringVar(&o.Bin, "bin", "", "the mem command the hooks were installed with, when its file is not named mem (default: this binary's absolute path)")
	} else {
		f.StringVar(&o.Bin, "bin", "", "the mem command the hooks run (default: this binary's absolute path)")
	}
	return cmd
}

func runInstall(app *App, o installOptions, remove bool) error {
	path, root, before, err := installTarget(app, o.Agent, o.Scope, install.Path)
	if err != nil {
		return err
	}
	bin, berr := memBinary(o.Bin, "--bin")
	var plan install.Plan
	if remove {
		// Without this binary's path, entries of a binary named mem are
		// still recognised.
		plan, err = install.Uninstall(o.Agent, path, before, bin)
	} else {
		if berr != nil {
			return berr
		}
		plan, err = install.Install(o.Agent, path, before, bin)
	}
	if err != nil {
		return UsageErr(err)
	}
	if remove {
		plan = restoring(plan, root, hookEdits(o.Agent, path, bin))
	}
	// Trust is worked out before anything is written, so that a refusal
	// leaves both files as they were.
	trust, err := trustPlan(app, o, plan, bin, remove, readFile)
	if err != nil {
		return err
	}
	apply := applyPlan
	if remove {
		apply = applyRemoval
	}
	backup, err := apply(plan, root, o.DryRun, uninstallClean(app, o.Agent, o.Scope, path, bin))
	if err != nil {
		return err
	}
	var trustBackup string
	if trust != nil {
		if trustBackup, err = apply(*trust, "", o.DryRun, uninstallClean(app, o.Agent, o.Scope, trust.Path, bin)); err != nil {
			return err
		}
	}
	return printPlan(app, plan, o, remove, backup, trust, trustBackup)
}

// readFile reads a settings file as install does (nil when it is absent).
func readFile(path string) ([]byte, error) { return install.Read(path, "") }

// trustPlan is the plan that records (or takes out) the trust an agent
// needs in mem's hooks before it runs them (nil for an agent or scope that
// needs none): for the hooks plan installs, or those it removes. read gives
// the trust file's content as it will be when the plan is applied.
func trustPlan(app *App, o installOptions, hooks install.Plan, bin string, remove bool, read func(string) ([]byte, error)) (*install.Plan, error) {
	t := install.TrustFor(o.Agent, o.Scope)
	if t == nil {
		return nil, nil
	}
	places, err := installPlaces(app, o.Scope)
	if err != nil {
		return nil, err
	}
	path := t.File(places)
	settings := hooks.After
	if remove {
		settings = hooks.Before
	}
	if settings == nil {
		return nil, nil
	}
	source, err := t.Source(places)
	if err != nil {
		return nil, UsageErr(fmt.Errorf("finding where %s keeps its hooks: %w", hooks.Agent, err))
	}
	before, err := read(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	var p install.Plan
	if remove {
		p, err = install.UninstallTrust(o.Agent, path, source, settings, before, bin)
	} else {
		p, err = install.InstallTrust(o.Agent, path, source, settings, before, bin)
	}
	if err != nil {
		return nil, UsageErr(err)
	}
	return &p, nil
}

// installTarget checks an agent and a scope, and finds and reads the file
// pathOf names for them (nil content when it does not exist yet). It also
// returns the project root the file must stay in ("" for user scope).
func installTarget(app *App, name, scope string, pathOf func(agent, scope string, p install.Places) (string, error)) (path, root string, before []byte, err error) {
	if _, ok := install.Lookup(name); !ok {
		return "", "", nil, Invalid("agent", "one of "+strings.Join(agent.Names(), ", "), name)
	}
	if scope != install.ScopeUser && scope != install.ScopeProject {
		return "", "", nil, Invalid("--scope", "user or project", scope)
	}
	places, err := installPlaces(app, scope)
	if err != nil {
		return "", "", nil, err
	}
	if path, err = pathOf(name, scope, places); err != nil {
		return "", "", nil, UsageErr(err)
	}
	if before, err = install.Read(path, places.Root); err != nil {
		return "", "", nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return path, places.Root, before, nil
}

// agentFiles lists, for help texts, each agent's file that file picks in
// both scopes, one agent a line.
func agentFiles(file func(install.Agent) install.Paths) string {
	home := install.Places{Home: "~", ConfigHome: "~/.config", Getenv: func(string) string { return "" }}
	var b strings.Builder
	for _, a := range install.All() {
		ps := file(a)
		fmt.Fprintf(&b, "  %-9s %s, %s\n", a.Name, ps.User(home), ps.Project)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// agentDetect lists, for install's help, how each agent is found.
func agentDetect() string {
	home := install.Places{Home: "~", ConfigHome: "~/.config", Getenv: func(string) string { return "" }}
	var b strings.Builder
	for _, a := range install.All() {
		var dirs []string
		if a.Detect.Dirs != nil {
			dirs = a.Detect.Dirs(home)
		}
		fmt.Fprintf(&b, "  %-9s %s, %s\n", a.Name, strings.Join(a.Detect.Commands, " "), strings.Join(dirs, " "))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// memBinary is the mem command to write into an agent's files: the given
// one, or mem's absolute path (see ownMem).
func memBinary(given, flag string) (string, error) {
	if given != "" {
		return given, nil
	}
	bin, err := ownMem()
	if err != nil {
		return "", fmt.Errorf("finding the mem binary: %w (give it with %s)", err, flag)
	}
	return bin, nil
}

// installPlaces are the folders agents' files are found in, for scope.
func installPlaces(app *App, scope string) (install.Places, error) {
	places := install.Places{Home: homeDir(app.Getenv), ConfigHome: app.Getenv("XDG_CONFIG_HOME"), Getenv: app.Getenv}
	if places.ConfigHome == "" {
		places.ConfigHome = filepath.Join(places.Home, ".config")
	}
	if scope == install.ScopeProject {
		id, err := app.Project()
		if err != nil {
			return places, err
		}
		places.Root = id.Root
	}
	return places, nil
}

// applyPlan writes a plan that changes its file, unless this is a dry run,
// and returns where the previous file was kept ("" for none). The backup
// keeps the file as it was before mem was in it: a file that already holds
// mem's entries (clean says it does not) does not replace a backup there.
func applyPlan(p install.Plan, root string, dryRun bool, clean func([]byte) bool) (backup string, err error) {
	if dryRun || !p.Changed {
		return "", nil
	}
	if p.Before != nil && !clean(p.Before) {
		if b, err := install.Read(backupOf(p.Path), root); err == nil && b != nil {
			p.Before = nil
		}
	}
	return install.Apply(p, root)
}

func printPlan(app *App, p install.Plan, o installOptions, remove bool, backup string, trust *install.Plan, trustBackup string) error {
	notes := p.Notes
	if a, ok := install.Lookup(p.Agent); ok && !remove {
		notes = a.NotesFor(o.Scope)
	}
	if app.JSON {
		out := map[string]any{"agent": p.Agent, "path": p.Path, "changed": p.Changed,
			"dry_run": o.DryRun, "backup": backup, "content": string(p.After), "removed": p.After == nil && p.Changed,
			"notes": notes}
		if trust != nil {
			out["trust"] = map[string]any{"path": trust.Path, "changed": trust.Changed, "backup": trustBackup,
				"content": string(trust.After), "removed": trust.After == nil && trust.Changed}
		}
		return PrintJSON(app.Out, out)
	}
	a, f := p.Agent, p.Path
	if remove {
		printChange(app, p, o.DryRun, remove, backup, "mem's hooks for "+a+" are not in "+f+": nothing to remove",
			"removed mem's hooks for "+a+" from "+f)
	} else {
		printChange(app, p, o.DryRun, remove, backup, "mem's hooks for "+a+" are already in "+f+": nothing to change",
			"installed mem's hooks for "+a+" in "+f)
	}
	if trust != nil {
		f = trust.Path
		if remove {
			printChange(app, *trust, o.DryRun, remove, trustBackup, "no trust in mem's hooks for "+a+" in "+f+": nothing to remove",
				"removed the trust in mem's hooks from "+f)
		} else {
			printChange(app, *trust, o.DryRun, remove, trustBackup, "mem's hooks are already trusted in "+f+": "+a+" runs them",
				"trusted mem's hooks in "+f+" (what /hooks in "+a+" records), so "+a+" runs them")
		}
	}
	for _, n := range notes {
		fmt.Fprintf(app.Out, "note: %s\n", n)
	}
	if n := importNote([]string{a}); n != "" && !remove && !o.DryRun {
		fmt.Fprintln(app.Out, n)
	}
	return nil
}

// printChange says what a plan did (done) or would do, or that it had
// nothing to do (same); remove: the plan takes mem out.
func printChange(app *App, p install.Plan, dryRun, remove bool, backup, same, done string) {
	switch {
	case !p.Changed:
		fmt.Fprintln(app.Out, same)
	case dryRun && p.After == nil:
		fmt.Fprintf(app.Out, "would remove %s\n", p.Path)
	case dryRun:
		fmt.Fprintf(app.Out, "would write %s:\n%s", p.Path, p.After)
	default:
		fmt.Fprintln(app.Out, done)
		printBackup(app, backup, !remove)
	}
}

// printBackup says what became of install's backup: kept (by install), or
// removed (by uninstall, once the file holds nothing of mem's).
func printBackup(app *App, backup string, kept bool) {
	switch {
	case backup == "":
	case kept:
		fmt.Fprintf(app.Out, "previous file kept as %s\n", backup)
	default:
		fmt.Fprintf(app.Out, "install's backup %s removed: the file holds nothing of mem's\n", backup)
	}
}

// uninstallClean says whether the file at path, as uninstall leaves it,
// holds none of mem's entries for agent (hooks or MCP server, whichever
// the file holds), so that install's backup of it can go.
func uninstallClean(app *App, agent, scope, path, bin string) func([]byte) bool {
	var edits []fileEdits
	if places, err := installPlaces(app, scope); err == nil {
		if p, err := install.Path(agent, scope, places); err == nil && p == path {
			edits = append(edits, hookEdits(agent, path, bin))
		}
		if p, err := install.MCPPath(agent, scope, places); err == nil && p == path {
			edits = append(edits, mcpEdits(agent, path, bin))
		}
	}
	if len(edits) == 0 {
		return func([]byte) bool { return false }
	}
	return holdsNone(edits...)
}
