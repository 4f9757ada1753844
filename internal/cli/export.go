package cli

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/memhq/mem/internal/interchange"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/store"
)

type exportOptions struct {
	Since  string
	Output string
}

func newExportCmd(app *App) *cobra.Command {
	var o exportOptions
	cmd := &cobra.Command{
		Use:   "export [--project P] [--since DATE] [-o FILE]",
		Short: "Write memory as JSON Lines (every project unless --project is given)",
		Long: `Write sessions, observations, summaries and prompts in the JSON Lines interchange format,
one record per line with a "kind". Without --project (or MEM_PROJECT) every project is exported.
--since takes ` + dateForms + `.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runExport(cmd.Context(), app, o)
		},
	}
	cmd.Flags().StringVar(&o.Since, "since", "", "only records from this time on")
	cmd.Flags().StringVarP(&o.Output, "output", "o", "", "write to this file instead of stdout")
	return cmd
}

func runExport(ctx context.Context, app *App, o exportOptions) error {
	since, err := parseDate("--since", o.Since, app.Now())
	if err != nil {
		return err
	}
	db, err := app.Store(ctx)
	if err != nil {
		return err
	}
	var w io.Writer = app.Out
	if o.Output != "" {
		f, err := os.Create(o.Output)
		if err != nil {
			return invalid("--output", "a writable file", o.Output)
		}
		defer f.Close()
		w = f
	}
	enc := interchange.NewEncoder(w)
	n := 0
	err = db.Export(ctx, store.ExportFilter{Project: app.cfg.String("project"), Since: since}, func(r memory.Record) error {
		n++
		return enc.Encode(r)
	})
	if err != nil {
		return fmt.Errorf("exporting: %w", err)
	}
	if err := enc.Flush(); err != nil {
		return fmt.Errorf("writing export: %w", err)
	}
	if o.Output != "" {
		fmt.Fprintf(app.Err, "exported %d records to %s\n", n, o.Output)
	}
	return nil
}
