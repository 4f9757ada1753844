package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/memhq/mem/internal/store"
)

// Version is mem's release version; release builds set it with -ldflags.
const Version = "0.1.0-dev"

func newVersionCmd(app *App) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print mem's version",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			commit := ""
			if bi, ok := debug.ReadBuildInfo(); ok {
				for _, s := range bi.Settings {
					if s.Key == "vcs.revision" {
						commit = s.Value
					}
				}
			}
			v := map[string]any{"version": Version, "schema_version": store.SchemaVersion(),
				"go": runtime.Version(), "commit": commit}
			if app.JSON {
				return printJSON(app.Out, v)
			}
			fmt.Fprintf(app.Out, "mem %s (schema %d, %s)\n", Version, store.SchemaVersion(), runtime.Version())
			return nil
		},
	}
}
