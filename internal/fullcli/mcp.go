package fullcli

import (
	"context"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/memhq/mem/internal/cli"
	"github.com/memhq/mem/internal/mcpserver"
	"github.com/memhq/mem/internal/recall"
)

type mcpOptions struct {
	Session string
	Verbose bool
}

func newMCPCmd(app *cli.App) *cobra.Command {
	var o mcpOptions
	cmd := &cobra.Command{
		Use:   "mcp [--session ID]",
		Short: cli.FullShort("mcp"),
		Long: `Run an MCP server on stdin/stdout for an agent: tools search, timeline, get_observations,
save_observation and recent_context, and resources mem://context/auto, mem://context/session/{id} and
mem://context/file/{path}. Stdout carries only the protocol; logs go to stderr. Observations are saved
in the session given by --session (env MEM_SESSION), or else in a session of the server's own created
in the current project at the first save. Register it with an agent with mem install-mcp.

One request is one line of JSON of at most 1 MiB. A longer line, a line that is not JSON, a batch or
anything that is not a JSON-RPC 2.0 message is answered with a JSON-RPC error (-32700 or -32600) and
the server goes on serving; the command ends when stdin closes.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("session") {
				o.Session = app.Getenv("MEM_SESSION")
			}
			return runMCP(cmd.Context(), app, o)
		},
	}
	cmd.Flags().StringVar(&o.Session, "session", "", "save observations in this session (env MEM_SESSION; default: one per server process)")
	cmd.Flags().BoolVarP(&o.Verbose, "verbose", "v", false, "log every request to stderr")
	return cmd
}

func runMCP(ctx context.Context, app *cli.App, o mcpOptions) error {
	if o.Session != "" {
		if err := cli.SessionArg(&o.Session); err != nil {
			return err
		}
	}
	id, err := app.Project()
	if err != nil {
		return err
	}
	db, err := app.WriteStore(ctx)
	if err != nil {
		return err
	}
	level := slog.LevelWarn
	if o.Verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(app.Err, &slog.HandlerOptions{Level: level}))
	wd, _ := app.Getwd()
	srv, err := mcpserver.New(mcpserver.Options{DB: db, Project: id.Key, Root: id.Root, Cwd: wd,
		Session: o.Session, Recall: recall.SettingsFrom(app.Config().Settings), Version: cli.Version, Now: app.Now, Logger: logger})
	if err != nil {
		return err
	}
	t := mcpserver.StdioTransport(app.In, app.Out, 0)
	if o.Verbose {
		t = &mcp.LoggingTransport{Transport: t, Writer: app.Err}
	}
	return srv.Run(ctx, t)
}
