package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/remember"
	"github.com/memhq/mem/internal/search"
)

// searchOptions are the flags of mem search.
type searchOptions struct {
	AllProjects bool
	ProjectSet  bool // --project was given
	Types       []string
	Kinds       []string
	Session     string
	File        string
	Since       string
	Until       string
	Limit       int
	Offset      int
}

func newSearchCmd(app *App) *cobra.Command {
	var o searchOptions
	cmd := &cobra.Command{
		Use:   "search [QUERY...]",
		Short: "Search observations, session summaries and prompts, best first",
		Long: `Search the memory of the project (or of every project) for free text: any text is a valid
query, including paths, identifiers, quotes and pasted logs. Hits are ranked (bm25 over the
fields, the session's summary, neighbouring observations, dates named in the query) and shown one
per line: the id to give to mem get (#123 observation, S12 summary, P7 prompt), the type, the date,
the title and a snippet with the query's words in [brackets]. --json prints the full records.
Without a query, the newest records that pass the filters are listed.`,
		Example: `  mem search retry backoff
  mem search "internal/store/db.go" --since 2w
  mem search SQLITE_BUSY --type problem,bugfix --limit 5 --json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ProjectSet = cmd.Flags().Changed("project")
			return runSearch(cmd.Context(), app, strings.Join(args, " "), o)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.AllProjects, "all-projects", false, "search every project, not just the current one")
	f.StringSliceVar(&o.Types, "type", nil, "only observations of these types (comma-separated): "+memory.TypeList())
	f.StringSliceVar(&o.Kinds, "kind", nil, "only these kinds (comma-separated): observation, summary, prompt")
	f.StringVar(&o.Session, "session", "", "only this session")
	f.StringVar(&o.File, "file", "", "only observations that read or modified this file (a path or its end)")
	f.StringVar(&o.Since, "since", "", "only records from this time on: "+dateForms)
	f.StringVar(&o.Until, "until", "", "only records before this time: "+dateForms)
	f.IntVar(&o.Limit, "limit", search.DefaultLimit, "how many hits to show")
	f.IntVar(&o.Offset, "offset", 0, "hits to skip first, for paging")
	return cmd
}

// searchQuery turns the flags into a query, reporting bad values as usage
// errors that name the flag.
func searchQuery(app *App, text string, o searchOptions) (search.Query, error) {
	q := search.Query{Text: text, AllProjects: o.AllProjects,
		File: strings.TrimSpace(o.File), Limit: o.Limit, Offset: o.Offset}
	if o.AllProjects && o.ProjectSet {
		return q, UsageErr(fmt.Errorf("--project and --all-projects: give one of them"))
	}
	if strings.TrimSpace(o.Session) != "" {
		if err := SessionArg(&o.Session); err != nil {
			return q, err
		}
		q.SessionID = o.Session
	}
	if !o.AllProjects {
		id, err := app.Project()
		if err != nil {
			return q, err
		}
		q.Project = id.Key
	}
	for _, t := range o.Types {
		typ, err := memory.ParseType(t)
		if err != nil {
			return q, Invalid("--type", "a comma-separated list of "+memory.TypeList(), t)
		}
		q.Types = append(q.Types, typ)
	}
	for _, k := range o.Kinds {
		kind, err := search.ParseKind(strings.TrimSpace(k))
		if err != nil {
			return q, Invalid("--kind", "a comma-separated list of observation, summary, prompt", k)
		}
		q.Kinds = append(q.Kinds, kind)
	}
	var err error
	if q.Since, err = parseDate("--since", o.Since, app.Now()); err != nil {
		return q, err
	}
	if q.Until, err = parseDate("--until", o.Until, app.Now()); err != nil {
		return q, err
	}
	if !q.Since.IsZero() && !q.Until.IsZero() && !q.Until.After(q.Since) {
		return q, Invalid("--until", "a time after --since", o.Until)
	}
	if o.Limit < 1 || o.Limit > search.MaxLimit {
		return q, Invalid("--limit", fmt.Sprintf("a number from 1 to %d", search.MaxLimit), fmt.Sprint(o.Limit))
	}
	if o.Offset < 0 || o.Offset+o.Limit > search.MaxLimit {
		return q, Invalid("--offset", fmt.Sprintf("a number >= 0 with --offset + --limit at most %d", search.MaxLimit), fmt.Sprint(o.Offset))
	}
	return q, nil
}

func runSearch(ctx context.Context, app *App, text string, o searchOptions) error {
	q, err := searchQuery(app, text, o)
	if err != nil {
		return err
	}
	db, err := app.ReadStore(ctx)
	if err != nil {
		return err
	}
	hits, _, err := remember.Search(ctx, db, q) // a command a person runs keeps nothing
	if err != nil {
		return err
	}
	if app.JSON {
		return printHitsJSON(app.Out, hits)
	}
	if len(hits) == 0 {
		fmt.Fprintln(app.Err, "no matches")
		return nil
	}
	w := app.Text()
	for _, h := range hits {
		writeHitLine(w, h, q.AllProjects)
	}
	return nil
}

// writeHitLine prints one hit on one line: ref, type, date, title, snippet.
func writeHitLine(w io.Writer, h search.Hit, withProject bool) {
	line := fmt.Sprintf("%-6s %-9s %s  %s", h.Ref, hitLabel(h), day(h.Date), oneLine(h.Title))
	if withProject {
		line += "  (" + h.Project + ")"
	}
	if h.Note != "" {
		line += "  [" + h.Note + "]"
	}
	if s := oneLine(h.Snippet); s != "" && s != oneLine(h.Title) {
		line += "  — " + s
	}
	fmt.Fprintln(w, line)
}

// hitLabel names what a hit is in a listing: an observation's type, or the
// kind of any other record.
func hitLabel(h search.Hit) string {
	label := string(h.Type)
	if h.Kind != search.KindObservation {
		label = string(h.Kind)
	}
	if h.Flag != "" {
		label += " [flagged]"
	}
	return label
}

// printHitsJSON writes hits as a JSON array, [] when there are none.
func printHitsJSON(w io.Writer, hits []search.Hit) error {
	if hits == nil {
		hits = []search.Hit{}
	}
	return PrintJSON(w, hits)
}
