package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/memhq/mem/internal/fsafe"
	"github.com/memhq/mem/internal/interchange"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/progress"
	"github.com/memhq/mem/internal/store"
)

type exportOptions struct {
	Since  string
	Output string
	Format string
}

func newExportCmd(app *App) *cobra.Command {
	var o exportOptions
	cmd := &cobra.Command{
		Use:   "export [--project P] [--since DATE] [--format jsonl|markdown] [-o FILE]",
		Short: "Write memory as JSON Lines (every project unless --project is given)",
		Long: `Write sessions, observations, summaries and prompts in the JSON Lines interchange format,
one record per line with a "kind". Without --project (or MEM_PROJECT) every project is exported.
--since takes ` + dateForms + `. With -o, the export is written beside FILE and renamed over it, so an
interrupted export leaves the previous FILE whole; a new FILE is readable by its owner only. FILE may
not be the database (or its -wal, -shm or -journal file) under any name, nor a link, FIFO or device.

--format markdown writes a readable, diffable mirror of one project (the current one unless
--project is given): its decisions, warnings, patterns and open problems, oldest first, each with its
id and date, its narrative and facts. The same memory gives the same bytes. The personal tier is a
project of its own (--project @personal) and never part of another's.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runExport(cmd.Context(), app, o)
		},
	}
	cmd.Flags().StringVar(&o.Since, "since", "", "only records from this time on")
	cmd.Flags().StringVarP(&o.Output, "output", "o", "", "write to this file instead of stdout")
	cmd.Flags().StringVar(&o.Format, "format", "jsonl", "jsonl (the interchange format) or markdown (a mirror of one project)")
	return cmd
}

func runExport(ctx context.Context, app *App, o exportOptions) error {
	since, err := parseDate("--since", o.Since, app.Now())
	if err != nil {
		return err
	}
	if o.Format != "jsonl" && o.Format != "markdown" {
		return Invalid("--format", "jsonl or markdown", o.Format)
	}
	if o.Output != "" {
		if err := checkExportTarget(o.Output, app.cfg.Settings.DB); err != nil {
			return err
		}
	}
	project := app.cfg.Settings.Project
	if o.Format == "markdown" {
		id, err := app.Project()
		if err != nil {
			return err
		}
		project = id.Key
	}
	db, err := app.ReadStore(ctx)
	if err != nil {
		return err
	}
	n := 0
	export := func(w io.Writer) error {
		if o.Format == "markdown" {
			obs, err := durableObservations(ctx, db, project, since)
			if err != nil {
				return fmt.Errorf("exporting: %w", err)
			}
			n = len(obs)
			return interchange.WriteMarkdown(w, project, obs)
		}
		enc := interchange.NewEncoder(w)
		bar := progress.New(app.Err, 0, "exporting", progress.Items)
		defer bar.Finish()
		err := db.Export(ctx, store.ExportFilter{Project: project, Since: since}, func(r memory.Record) error {
			n++
			bar.Add(1)
			return enc.Encode(r)
		})
		if err != nil {
			return fmt.Errorf("exporting: %w", err)
		}
		if err := enc.Flush(); err != nil {
			return fmt.Errorf("writing export: %w", err)
		}
		return nil
	}
	if o.Output == "" {
		return export(app.Out)
	}
	var exportErr error
	err = fsafe.Write(o.Output, 0o600, func(w io.Writer) error {
		exportErr = export(w)
		return exportErr
	})
	switch {
	case exportErr != nil:
		return exportErr
	case errors.Is(err, fsafe.ErrNotRegular):
		return UsageErr(fmt.Errorf("--output: %w", err))
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrPermission):
		return Invalid("--output", "a writable file", o.Output+": "+RootCause(err))
	case err != nil:
		return fmt.Errorf("writing %s: %w", o.Output, err) // a full or failing disk: exit 1
	}
	fmt.Fprintf(app.Err, "exported %d records to %s\n", n, o.Output)
	return nil
}

// durableObservations are a project's observations of the kinds the
// Markdown mirror and the repository's file hold, oldest first.
func durableObservations(ctx context.Context, db *store.DB, project string, since time.Time) ([]memory.Observation, error) {
	const page = 1000
	var out []memory.Observation
	for {
		obs, err := db.ListObservations(ctx, store.ObservationFilter{Project: project, Types: interchange.MarkdownTypes(),
			Since: since, Ascending: true, Limit: page, Offset: len(out)})
		if err != nil {
			return nil, err
		}
		out = append(out, obs...)
		if len(obs) < page {
			return out, nil
		}
	}
}

// checkExportTarget refuses an output file that is the database or one of
// the files SQLite keeps beside it, under any name (a link, a hard link, a
// relative path), and one that is a link, FIFO, device or directory.
func checkExportTarget(out, db string) error {
	if _, err := fsafe.CheckTarget(out); err != nil {
		return UsageErr(fmt.Errorf("--output: %w", err))
	}
	oi, oerr := os.Stat(out)
	outPath := realPath(out)
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		same := outPath != "" && outPath == realPath(db+suffix)
		if di, err := os.Stat(db + suffix); err == nil && oerr == nil && os.SameFile(oi, di) {
			same = true
		}
		if same {
			return Invalid("--output", "a file that is not the database or its -wal, -shm or -journal file", out+" is "+db+suffix)
		}
	}
	return nil
}

// realPath is p made absolute with the links in its folder resolved, or ""
// when that folder cannot be resolved.
func realPath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return ""
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return ""
	}
	return filepath.Join(dir, filepath.Base(abs))
}
