// Command mem-full is mem with every command: mem's own and the ones that
// bring the MCP SDK and the network stack (mcp, sync, web), which mem hands
// over to it. It is installed beside mem.
package main

import (
	"context"
	"os"

	"github.com/memhq/mem/internal/cli"
	"github.com/memhq/mem/internal/fullcli"
)

func main() {
	app := cli.NewApp(os.Stdin, os.Stdout, os.Stderr)
	os.Exit(fullcli.Main(context.Background(), app, os.Args[1:]))
}
