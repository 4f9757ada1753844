package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memhq/mem/internal/agent"
	"github.com/memhq/mem/internal/config"
	"github.com/memhq/mem/internal/install"
)

type installMCPOptions struct {
	Agent   string
	Scope   string
	DryRun  bool
	Command string
}

func newInstallMCPCmd(app *App) *cobra.Command {
	var o installMCPOptions
	cmd := &cobra.Command{
		Use:   "install-mcp " + strings.Join(agent.Names(), "|"),
		Short: "Register mem's MCP server (mem mcp) in an agent's configuration",
		Long: `Register "mem mcp" as the MCP server "mem" in an agent's configuration. Everything else in the
file stays; an entry named mem is replaced; running it again changes nothing. The previous file is
kept as <file>.mem.bak. The command is this binary's absolute path unless --command says otherwise.
No database is written into the entry: like the hooks, the server uses the database of the editor's
environment (MEM_DB) or mem's configuration, so both always use the same one. A file or backup that is a link, FIFO or
device, or a project folder that leads out of the project, is refused and nothing is written.
Configuration files (user scope, project scope):
` + agentFiles(func(a install.Agent) install.Paths { return a.MCPFile }),
		Args:      cobra.ExactArgs(1),
		ValidArgs: agent.Names(),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Agent = args[0]
			return runInstallMCP(app, o, false)
		},
	}
	addInstallMCPFlags(cmd, &o)
	cmd.Flags().StringVar(&o.Command, "command", "", "the mem command the agent runs (default: this binary's absolute path)")
	return cmd
}

func newUninstallMCPCmd(app *App) *cobra.Command {
	var o installMCPOptions
	cmd := &cobra.Command{
		Use:   "uninstall-mcp " + strings.Join(agent.Names(), "|"),
		Short: "Remove mem's MCP server, and nothing else, from an agent's configuration",
		Long: `Remove the MCP server entry "mem" from an agent's configuration (the files of install-mcp).
Everything else in the file stays. Backups as mem uninstall --help says: none written, install's put
back byte for byte when nothing else changed, and removed once the file holds nothing of mem's.`,
		Args:      cobra.ExactArgs(1),
		ValidArgs: agent.Names(),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Agent = args[0]
			return runInstallMCP(app, o, true)
		},
	}
	addInstallMCPFlags(cmd, &o)
	return cmd
}

func addInstallMCPFlags(cmd *cobra.Command, o *installMCPOptions) {
	cmd.Flags().StringVar(&o.Scope, "scope", install.ScopeUser, "user (your configuration) or project (the project's file, to commit)")
	cmd.Flags().BoolVar(&o.DryRun, "dry-run", false, "print the resulting file instead of writing it")
}

func runInstallMCP(app *App, o installMCPOptions, remove bool) error {
	path, root, before, err := installTarget(app, o.Agent, o.Scope, install.MCPPath)
	if err != nil {
		return err
	}
	var plan install.Plan
	if remove {
		plan, err = install.UninstallMCP(o.Agent, path, before)
	} else {
		bin, args, berr := mcpCommand(app, o.Command)
		if berr != nil {
			return berr
		}
		plan, err = install.InstallMCP(o.Agent, path, before, bin, args)
	}
	if err != nil {
		return UsageErr(err)
	}
	var backup string
	bin, _ := memBinary(o.Command, "--command")
	clean := uninstallClean(app, o.Agent, o.Scope, path, bin)
	if remove {
		plan = restoring(plan, root, mcpEdits(o.Agent, path, bin))
		backup, err = applyRemoval(plan, root, o.DryRun, clean)
	} else {
		backup, err = applyPlan(plan, root, o.DryRun, clean)
	}
	if err != nil {
		return err
	}
	if app.JSON {
		return PrintJSON(app.Out, map[string]any{"agent": plan.Agent, "path": plan.Path, "changed": plan.Changed,
			"dry_run": o.DryRun, "backup": backup, "content": string(plan.After)})
	}
	switch {
	case !plan.Changed && remove:
		fmt.Fprintf(app.Out, "mem's MCP server is not in %s: nothing to remove\n", plan.Path)
	case !plan.Changed:
		fmt.Fprintf(app.Out, "mem's MCP server is already in %s: nothing to change\n", plan.Path)
	case o.DryRun:
		fmt.Fprintf(app.Out, "would write %s:\n%s", plan.Path, plan.After)
	default:
		verb := "registered mem's MCP server for " + plan.Agent + " in"
		if remove {
			verb = "removed mem's MCP server for " + plan.Agent + " from"
		}
		fmt.Fprintf(app.Out, "%s %s\n", verb, plan.Path)
		printBackup(app, backup, !remove)
	}
	if db := app.Config().Origin(&app.Config().Settings.DB); !remove && (db.Source == config.SourceFlag || db.Source == config.SourceEnv) {
		fmt.Fprintf(app.Out, "note: the MCP server and the hooks use the database of the editor's environment (MEM_DB) or mem's configuration, not %s: set MEM_DB where the editor starts\n", db.Value)
	}
	if _, err := app.fullBinary(); err != nil && !remove && o.Command == "" {
		fmt.Fprintf(app.Out, "note: mem mcp runs in %s: %v\n", FullName, err)
	}
	return nil
}

// mcpCommand is the command line an agent runs for mem's MCP server: this
// binary (or command) with mcp. The database is left to the editor's
// environment and mem's configuration, as for the hooks, so that both
// always use the same one; the project to the directory the agent runs in.
func mcpCommand(app *App, command string) (string, []string, error) {
	bin, err := memBinary(command, "--command")
	if err != nil {
		return "", nil, err
	}
	return bin, []string{"mcp"}, nil
}
