// Command mem is a persistent memory engine for AI coding agents.
package main

import (
	"context"
	"os"

	"github.com/memhq/mem/internal/cli"
)

func main() {
	app := cli.NewApp(os.Stdin, os.Stdout, os.Stderr)
	os.Exit(cli.Main(context.Background(), app, os.Args[1:]))
}
