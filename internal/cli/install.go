package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memhq/mem/internal/fsafe"
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
	long := `Merge mem's hook entries into the agent's settings file, keeping everything else in it, or write
mem's OpenCode plugin. Running it again changes nothing; the previous file is kept as <file>.mem.bak.
Settings files: claude ~/.claude/settings.json (project: .claude/settings.json), codex
~/.codex/hooks.json (.codex/hooks.json), gemini ~/.gemini/settings.json (.gemini/settings.json),
opencode ~/.config/opencode/plugins/mem.js (.opencode/plugins/mem.js).`
	if remove {
		use, short = "uninstall", "Remove exactly what mem install added to an agent's settings"
		long = `Remove mem's hook entries (and the groups and events they leave empty) from the agent's
settings file, or mem's OpenCode plugin. Everything else in the file stays; the previous file is kept
as <file>.mem.bak.`
	}
	cmd := &cobra.Command{
		Use:       use + " claude|codex|gemini|opencode",
		Short:     short,
		Long:      long,
		Args:      cobra.ExactArgs(1),
		ValidArgs: install.Agents,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Agent = args[0]
			return runInstall(app, o, remove)
		},
	}
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
	path, before, err := installTarget(app, o.Agent, o.Scope, install.Path)
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
		return usageErr(err)
	}
	backup, err := applyPlan(plan, o.DryRun)
	if err != nil {
		return err
	}
	return printPlan(app, plan, o, remove, backup)
}

// installTarget checks an agent and a scope, and finds and reads the file
// pathOf names for them (nil content when it does not exist yet).
func installTarget(app *App, agent, scope string, pathOf func(agent, scope string, p install.Places) (string, error)) (string, []byte, error) {
	if !slices.Contains(install.Agents, agent) {
		return "", nil, invalid("agent", "one of "+strings.Join(install.Agents, ", "), agent)
	}
	if scope != install.ScopeUser && scope != install.ScopeProject {
		return "", nil, invalid("--scope", "user or project", scope)
	}
	places, err := installPlaces(app, scope)
	if err != nil {
		return "", nil, err
	}
	path, err := pathOf(agent, scope, places)
	if err != nil {
		return "", nil, usageErr(err)
	}
	before, err := fsafe.ReadFile(path, 0)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return path, before, nil
}

// memBinary is the mem command to write into an agent's files: the given
// one, or this binary's absolute path.
func memBinary(given, flag string) (string, error) {
	if given != "" {
		return given, nil
	}
	bin, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("finding the mem binary: %w (give it with %s)", err, flag)
	}
	if r, err := filepath.EvalSymlinks(bin); err == nil {
		bin = r
	}
	return bin, nil
}

// installPlaces are the folders agents' files are found in, for scope.
func installPlaces(app *App, scope string) (install.Places, error) {
	places := install.Places{Home: homeDir(app.Getenv), ConfigHome: app.Getenv("XDG_CONFIG_HOME"), CodexHome: app.Getenv("CODEX_HOME")}
	if places.ConfigHome == "" {
		places.ConfigHome = filepath.Join(places.Home, ".config")
	}
	if places.CodexHome == "" {
		places.CodexHome = filepath.Join(places.Home, ".codex")
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
// and returns where the previous file was kept ("" for none).
func applyPlan(p install.Plan, dryRun bool) (backup string, err error) {
	if dryRun || !p.Changed {
		return "", nil
	}
	return apply(p)
}

// apply writes a plan: the previous file goes to <file>.mem.bak, the new one
// is written beside it and renamed into place.
func apply(p install.Plan) (backup string, err error) {
	if p.Before != nil {
		backup = p.Path + ".mem.bak"
		if err := os.WriteFile(backup, p.Before, 0o600); err != nil {
			return "", fmt.Errorf("backing up %s: %w", p.Path, err)
		}
	}
	if p.After == nil {
		if err := os.Remove(p.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return backup, fmt.Errorf("removing %s: %w", p.Path, err)
		}
		return backup, nil
	}
	if err := os.MkdirAll(filepath.Dir(p.Path), 0o755); err != nil {
		return backup, fmt.Errorf("creating %s: %w", filepath.Dir(p.Path), err)
	}
	// Keep the file's permissions: agent files can hold credentials.
	mode := os.FileMode(0o644)
	if st, err := os.Stat(p.Path); err == nil {
		mode = st.Mode().Perm()
	}
	tmp := p.Path + ".mem.tmp"
	if err := os.WriteFile(tmp, p.After, mode); err != nil {
		return backup, fmt.Errorf("writing %s: %w", p.Path, err)
	}
	if err := os.Rename(tmp, p.Path); err != nil {
		os.Remove(tmp)
		return backup, fmt.Errorf("writing %s: %w", p.Path, err)
	}
	return backup, nil
}

func printPlan(app *App, p install.Plan, o installOptions, remove bool, backup string) error {
	if app.JSON {
		return printJSON(app.Out, map[string]any{"agent": p.Agent, "path": p.Path, "changed": p.Changed,
			"dry_run": o.DryRun, "backup": backup, "content": string(p.After), "removed": p.After == nil && p.Changed,
			"notes": p.Notes})
	}
	verb := "installed mem's hooks for " + p.Agent + " in"
	if remove {
		verb = "removed mem's hooks for " + p.Agent + " from"
	}
	switch {
	case !p.Changed && remove:
		fmt.Fprintf(app.Out, "mem's hooks for %s are not in %s: nothing to remove\n", p.Agent, p.Path)
	case !p.Changed:
		fmt.Fprintf(app.Out, "mem's hooks for %s are already in %s: nothing to change\n", p.Agent, p.Path)
	case o.DryRun && p.After == nil:
		fmt.Fprintf(app.Out, "would remove %s\n", p.Path)
	case o.DryRun:
		fmt.Fprintf(app.Out, "would write %s:\n%s", p.Path, p.After)
	default:
		fmt.Fprintf(app.Out, "%s %s\n", verb, p.Path)
		if backup != "" {
			fmt.Fprintf(app.Out, "previous file kept as %s\n", backup)
		}
	}
	for _, n := range p.Notes {
		fmt.Fprintf(app.Out, "note: %s\n", n)
	}
	return nil
}
