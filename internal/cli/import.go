package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memhq/mem/internal/agentmem"
	"github.com/memhq/mem/internal/interchange"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/progress"
)

func newImportCmd(app *App) *cobra.Command {
	var from []string
	cmd := &cobra.Command{
		Use:   "import FILE|- | --from claude|codex|gemini",
		Short: "Read memory from JSON Lines (all of the file or, on a bad line, nothing), or an agent's own memory",
		Long: `Import a JSON Lines file written by mem export (- reads stdin). Sessions are matched by id and
everything else by uuid, so importing the same file twice adds nothing. A bad line stops the import
with its line number, and nothing of the file is written. FILE may be a pipe, such as <(zcat
memory.jsonl.gz); a FIFO that nothing writes to reads as empty. Devices are refused.

--from reads the memories an agent keeps itself for the current project (several: --from
claude,gemini): Claude Code's auto memory (~/.claude/projects/<root>/memory/*.md), Codex memories
(~/.codex/memories/MEMORY.md, the blocks of this project's folders), Gemini CLI's memory files
(the "## Gemini Added Memories" of ~/.gemini/GEMINI.md, personal; ~/.gemini/tmp/<project>/memory/MEMORY.md).
Each entry becomes an observation filed as the agent's memory (mem get shows tool "memory:<agent>"),
after the privacy filter; importing again changes nothing, an edited entry updates its observation,
a deleted one retires it. Entries about the user (a Claude "user" memory, Gemini's global facts) go
to the personal tier, given back in every project. Session start does the same when a file changed.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(from) > 0 {
				if len(args) > 0 {
					return Invalid("FILE", "no file with --from", args[0])
				}
				return nil
			}
			return cobra.ExactArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(from) > 0 {
				return runImportFrom(cmd.Context(), app, from)
			}
			return runImport(cmd.Context(), app, args[0])
		},
	}
	cmd.Flags().StringSliceVar(&from, "from", nil, "read the memory an agent keeps itself: "+strings.Join(agentmem.Kinds, ", "))
	return cmd
}

// runImportFrom reads the agents' own memories of the current project.
func runImportFrom(ctx context.Context, app *App, from []string) error {
	for _, k := range from {
		if !slices.Contains(agentmem.Kinds, k) {
			return Invalid("--from", strings.Join(agentmem.Kinds, ", "), k)
		}
	}
	id, err := app.Project()
	if err != nil {
		return err
	}
	db, err := app.WriteStore(ctx)
	if err != nil {
		return err
	}
	rep, err := agentmem.Refresh(ctx, db, agentEnv(app), from, id.Key, id.Root, true)
	if err != nil {
		return err
	}
	if app.JSON {
		return PrintJSON(app.Out, rep)
	}
	for _, f := range rep.Files {
		r := f.Result
		fmt.Fprintf(app.Text(), "%s %s: %d added, %d updated, %d retired, %d unchanged\n", f.Kind, f.Path, r.Added, r.Updated, r.Retired, r.Unchanged)
	}
	t := rep.Totals
	fmt.Fprintf(app.Out, "imported from %s: %d added, %d updated, %d retired, %d unchanged\n", strings.Join(from, ", "), t.Added, t.Updated, t.Retired, t.Unchanged)
	return nil
}

// agentEnv is where the agents keep their files: under HOME.
func agentEnv(app *App) agentmem.Env {
	return agentmem.Env{Home: homeDir(app.Getenv), Getenv: app.Getenv, Now: app.Now}
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
