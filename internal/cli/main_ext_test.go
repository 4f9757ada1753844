package cli_test

import (
	"context"
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/memhq/mem/internal/cli"
	"github.com/memhq/mem/internal/fullcli"
)

// TestMain lets testscript run this test binary as the `mem` command, and as
// the `mem-full` that mem hands mcp, sync and web over to, so the scripts
// exercise the real command line in real processes. It is in package
// cli_test because fullcli imports cli.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"mem": func() {
			os.Exit(cli.Main(context.Background(), cli.NewApp(os.Stdin, os.Stdout, os.Stderr), os.Args[1:]))
		},
		cli.FullName: func() {
			os.Exit(fullcli.Main(context.Background(), cli.NewApp(os.Stdin, os.Stdout, os.Stderr), os.Args[1:]))
		},
	})
}
