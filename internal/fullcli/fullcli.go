// Package fullcli holds the commands only mem-full links: the MCP server,
// the web viewer and team sync. They bring the MCP SDK and the network
// stack, whose start-up every other call of mem would pay; mem hands them
// over to mem-full (see cli.FullBinary). internal/cli's scripts test them
// through that hand-over.
package fullcli

import (
	"context"

	"github.com/memhq/mem/internal/cli"
)

// Main runs mem-full: mem's commands and the ones of this package.
func Main(ctx context.Context, app *cli.App, args []string) int {
	return cli.Main(ctx, app, args,
		cli.Command{Name: "mcp", New: newMCPCmd},
		cli.Command{Name: "sync", New: newSyncCmd},
		cli.Command{Name: "web", New: newWebCmd},
	)
}
