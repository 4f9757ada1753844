package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memhq/mem/internal/interchange"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/progress"
)

func newImportCmd(app *App) *cobra.Command {
	return &cobra.Command{
		Use:   "import FILE|-",
		Short: "Read memory from JSON Lines: all of the file or, on a bad line, nothing",
		Long: `Import a JSON Lines file written by mem export (- reads stdin). Sessions are matched by id and
everything else by uuid, so importing the same file twice adds nothing. A bad line stops the import
with its line number, and nothing of the file is written. FILE may be a pipe, such as <(zcat
memory.jsonl.gz); a FIFO that nothing writes to reads as empty. Devices are refused.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runImport(cmd.Context(), app, args[0])
		},
	}
}

func runImport(ctx context.Context, app *App, src string) error {
	var r io.Reader = app.In
	total := int64(0) // not known for a pipe
	if src != "-" {
		f, err := openFileArg("file", src)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			total = fi.Size()
		}
	}
	bar := progress.New(app.Err, total, "importing", progress.Bytes)
	defer bar.Finish()
	r = bar.Reader(r)
	// Streamed: lines are decoded a few batches ahead of the one
	// transaction that writes them, so memory does not grow with the file.
	rd := interchange.NewReader(r)
	defer rd.Close()
	// The first batch is read before the database is opened: a file that is
	// not JSON Lines leaves the database untouched, not even created.
	first, err := rd.Next()
	if err != nil && err != io.EOF {
		return UsageErr(fmt.Errorf("import %s: %w", src, err))
	}
	db, err := app.WriteStore(ctx)
	if err != nil {
		return err
	}
	pending := first != nil
	res, err := db.ImportStream(ctx, func() ([]memory.Record, error) {
		if pending {
			pending = false
			return first, nil
		}
		batch, err := rd.Next()
		if err != nil && err != io.EOF {
			return nil, decodeError{err}
		}
		return batch, err
	})
	if de, ok := errors.AsType[decodeError](err); ok {
		return UsageErr(fmt.Errorf("import %s: %w", src, de.err))
	}
	if err != nil {
		return err
	}
	if app.JSON {
		return PrintJSON(app.Out, res)
	}
	fmt.Fprintf(app.Out, "imported %s; already present %s\n", counts(res.Added), counts(res.Skipped))
	projects := make([]string, 0, len(res.Projects))
	for p := range res.Projects {
		projects = append(projects, p)
	}
	sort.Strings(projects)
	for _, p := range projects {
		fmt.Fprintf(app.Text(), "  into %s: %d %s\n", p, res.Projects[p], noun(res.Projects[p], "record"))
	}
	return nil
}

// noun is word, in the plural unless n is 1.
func noun(n int, word string) string {
	if n == 1 {
		return word
	}
	return plural(word)
}

// decodeError is a bad line of the imported file, told apart from what the
// database refused.
type decodeError struct{ err error }

func (e decodeError) Error() string { return e.err.Error() }
func (e decodeError) Unwrap() error { return e.err }

func counts(m map[string]int) string {
	if len(m) == 0 {
		return "nothing"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d %s", m[k], plural(k))
	}
	return strings.Join(parts, ", ")
}

// plural names a record kind in the plural: "summary" becomes "summaries".
func plural(kind string) string {
	if strings.HasSuffix(kind, "y") {
		return strings.TrimSuffix(kind, "y") + "ies"
	}
	return kind + "s"
}
