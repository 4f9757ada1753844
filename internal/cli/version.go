package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/memhq/mem/internal/store"
)

// Version and Commit are stamped by scripts/release (-ldflags -X); a plain
// go build or go install leaves Version as is and Commit empty, and the
// commit then comes from the build's VCS stamp when it has one.
var (
	Version = "0.1.0-dev"
	Commit  = ""
)

func newVersionCmd(app *App) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print mem's version",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			v := map[string]any{"version": Version, "schema_version": store.SchemaVersion(),
				"go": runtime.Version(), "commit": commit()}
			if app.JSON {
				return PrintJSON(app.Out, v)
			}
			fmt.Fprintf(app.Out, "mem %s (schema %d, %s)\n", Version, store.SchemaVersion(), runtime.Version())
			return nil
		},
	}
}

// commit is the commit mem was built from: stamped by scripts/release, else
// the build's VCS stamp, else empty.
func commit() string {
	if Commit != "" {
		return Commit
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				return s.Value
			}
		}
	}
	return ""
}
