package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memhq/mem/internal/search"
)

// timelineOptions are the flags of mem timeline.
type timelineOptions struct {
	Around  string
	Session string
	Query   string
	Before  int
	After   int
}

func newTimelineCmd(app *App) *cobra.Command {
	var o timelineOptions
	cmd := &cobra.Command{
		Use:   "timeline (--around ID | --session S | --query Q) [--before N] [--after N]",
		Short: "Show what happened around an observation: the session's prompts and observations in order",
		Long: `Show the prompts and observations of a session in the order they happened: around an
observation (--around 123), around the best search hit of the current project (--query), or a
whole session from its start (--session; --after then caps the entries). The anchor is marked >.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runTimeline(cmd.Context(), app, o, cmd.Flags().Changed("after"))
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Around, "around", "", "observation id (123 or #123) to show the context of")
	f.StringVar(&o.Session, "session", "", "session id to show from its start")
	f.StringVar(&o.Query, "query", "", "search the current project and show the context of the best observation")
	f.IntVar(&o.Before, "before", 5, "entries to show before the anchor")
	f.IntVar(&o.After, "after", 5, "entries to show after the anchor")
	return cmd
}

func runTimeline(ctx context.Context, app *App, o timelineOptions, afterSet bool) error {
	given := 0
	for _, v := range []string{o.Around, o.Session, o.Query} {
		if strings.TrimSpace(v) != "" {
			given++
		}
	}
	if given != 1 {
		return Invalid("--around/--session/--query", "exactly one of them", fmt.Sprintf("%d given", given))
	}
	if o.Before < 0 || o.Before > search.MaxLimit {
		return Invalid("--before", fmt.Sprintf("a number from 0 to %d", search.MaxLimit), fmt.Sprint(o.Before))
	}
	if o.After < 0 || o.After > search.MaxLimit {
		return Invalid("--after", fmt.Sprintf("a number from 0 to %d", search.MaxLimit), fmt.Sprint(o.After))
	}
	tq := search.TimelineQuery{Before: o.Before, After: o.After}
	if strings.TrimSpace(o.Session) != "" {
		if err := SessionArg(&o.Session); err != nil {
			return err
		}
		tq.SessionID = o.Session
	}
	if tq.SessionID != "" && !afterSet {
		tq.After = 0 // the whole session
	}
	if o.Around != "" {
		r, err := parseRef(o.Around)
		if err != nil || r.Summary || r.Prompt {
			return Invalid("--around", "an observation id (123 or #123)", o.Around)
		}
		tq.Around = r.ID
	}
	db, err := app.ReadStore(ctx)
	if err != nil {
		return err
	}
	if o.Query != "" {
		id, err := app.Project()
		if err != nil {
			return err
		}
		hits, err := search.Search(ctx, db, search.Query{Text: o.Query, Project: id.Key, Limit: 1,
			Kinds: []search.Kind{search.KindObservation}})
		if err != nil {
			return err
		}
		if len(hits) == 0 {
			return notFound(fmt.Sprintf("an observation matching %q in project %s", o.Query, id.Key))
		}
		tq.Around = hits[0].ID
	}
	hits, err := db.Timeline(ctx, tq)
	if err != nil {
		return err
	}
	if app.JSON {
		return printHitsJSON(app.Out, hits)
	}
	w := app.Text()
	for _, h := range hits {
		mark := " "
		if h.Anchor {
			mark = ">"
		}
		fmt.Fprintf(w, "%s %-6s %-9s %s  %s\n", mark, h.Ref, hitLabel(h), Stamp(h.Date), oneLine(h.Title))
	}
	return nil
}
