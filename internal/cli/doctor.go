package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/memhq/mem/internal/store"
)

func newDoctorCmd(app *App) *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Check the database: integrity, full-text indexes, migrations, WAL size (exit 1 if unwell)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			db, err := store.Open(ctx, app.cfg.String("db"), store.Options{NoMigrate: true})
			if err != nil {
				return dbError(app.cfg.String("db"), err)
			}
			defer db.Close()
			checks := db.Doctor(ctx)
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
					if !c.OK {
						mark = "FAIL"
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
