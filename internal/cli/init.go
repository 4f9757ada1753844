package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
)

func newInitCmd(app *App) *cobra.Command {
	return &cobra.Command{
		Use:   "init",
		Short: "Create (or migrate) the database and show which project this directory is",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runInit(cmd.Context(), app)
		},
	}
}

func runInit(ctx context.Context, app *App) error {
	db, err := app.WriteStore(ctx)
	if err != nil {
		return err
	}
	id, err := app.Project()
	if err != nil {
		return err
	}
	st, err := db.Migrations(ctx)
	if err != nil {
		return err
	}
	if app.JSON {
		return PrintJSON(app.Out, map[string]any{"db": db.Path(), "schema_version": st.Current, "project": id})
	}
	fmt.Fprintf(app.Text(), "database: %s (schema version %d)\nproject:  %s (%s)\n", db.Path(), st.Current, id.Key, id.Source)
	return nil
}
