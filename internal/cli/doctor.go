package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/memhq/mem/internal/spool"
	"github.com/memhq/mem/internal/store"
)

func newDoctorCmd(app *App) *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Check the database: integrity, full-text indexes, migrations, WAL size, spool (exit 1 if unwell)",
		Long: `Check the database: SQLite's integrity check, each full-text index against its table, the
migration state, the WAL size and the hook events spooled beside it. Exit 1 when a check fails.

A check that finds the database held by another process (an import, say) waits for it up to
10 s, then is reported "busy": it was not run, which says nothing of damage, and does not
change the exit code. Run mem doctor again once the other process is done. With no database
file yet, it says so and creates none.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			path := app.cfg.Settings.DB
			if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
				// Nothing to check, and nothing to create: hooks and mem init make it.
				if app.JSON {
					return printJSON(app.Out, map[string]any{"db": path, "exists": false, "healthy": true, "checks": []store.Check{}})
				}
				fmt.Fprintf(app.text(), "no database yet at %s: mem init creates it (hooks do at first use)\n", path)
				return nil
			}
			db, err := store.Open(ctx, path, store.Options{NoMigrate: true, Wait: doctorWait})
			if err != nil {
				return dbError(app.cfg.Settings.DB, err)
			}
			defer db.Close()
			checks := append(db.Doctor(ctx), spoolCheck(db.Path()))
			healthy := true
			for _, c := range checks {
				healthy = healthy && c.OK
			}
			if app.JSON {
				if err := printJSON(app.Out, map[string]any{"db": db.Path(), "healthy": healthy, "checks": checks}); err != nil {
					return err
				}
			} else {
				for _, c := range checks {
					mark := "ok  "
					switch {
					case !c.OK:
						mark = "FAIL"
					case c.Busy:
						mark = "busy"
					}
					fmt.Fprintf(app.text(), "%s  %-22s %s\n", mark, c.Name, c.Detail)
				}
			}
			if !healthy {
				return &exitError{code: ExitFailure, msg: "the database at " + db.Path() + " is not healthy"}
			}
			return nil
		},
	}
}

// doctorWait is how long doctor's checks wait for another process's write.
const doctorWait = 10 * time.Second

// spoolCheck reports the hook events waiting in the spool beside the
// database (applied by the next command that writes) and those set aside
// because they could not be applied (hook.log says why).
func spoolCheck(dbPath string) store.Check {
	sp := spool.Beside(dbPath)
	waiting, failed, err := sp.Len()
	if err != nil {
		return store.Check{Name: "spool", OK: false, Detail: err.Error()}
	}
	detail := fmt.Sprintf("%d hook events waiting", waiting)
	if failed > 0 {
		detail += fmt.Sprintf(", %d set aside in %s (see hook.log)", failed, sp.Path())
	}
	return store.Check{Name: "spool", OK: true, Detail: detail}
}
