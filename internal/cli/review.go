package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/memhq/mem/internal/guard"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/store"
)

type reviewOptions struct {
	All    bool
	Rescan bool
	Limit  int
}

func newReviewCmd(app *App) *cobra.Command {
	var o reviewOptions
	cmd := &cobra.Command{
		Use:   "review [release ID... | forget ID...]",
		Short: "The records the instruction check holds back from the agent: list, release or forget them",
		Long: `mem checks what it stores for text shaped like an instruction to the assistant ("ignore
previous instructions", "from now on always ...", "ASSISTANT, you must ...", curl ... | sh, forged
<system> tags, requests to send files or secrets somewhere, hidden characters), whatever its source,
and never gives a flagged record to the agent. mem review lists the project's flagged observations
and summaries with the rule and the text it matched; release ID... lets records through (you read
them and they are not instructions); forget ID... deletes them for good, as mem forget does.
--rescan first checks every record of the project with today's rules (records stored before a rule
existed, imports). Ids: 123 or #123 for an observation, S12 for a summary; an id that is not a
flagged record of the project is an error (exit 2) and nothing changes.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return runReviewList(cmd.Context(), app, o)
			}
			switch args[0] {
			case "release":
				return runReviewRelease(cmd.Context(), app, args[1:])
			case "forget":
				if len(args) == 1 {
					return Invalid("forget", "one or more ids (123, #123, S12)", "")
				}
				return runForget(cmd.Context(), app, forgetOptions{IDs: args[1:]})
			}
			return Invalid("review", "no argument, release ID... or forget ID...", args[0])
		},
	}
	cmd.Flags().BoolVar(&o.All, "all", false, "list released records too")
	cmd.Flags().BoolVar(&o.Rescan, "rescan", false, "check every record of the project with today's rules first")
	cmd.Flags().IntVar(&o.Limit, "limit", 100, "at most this many observations and summaries")
	return cmd
}

func runReviewList(ctx context.Context, app *App, o reviewOptions) error {
	if o.Limit < 1 {
		return Invalid("--limit", "a number >= 1", fmt.Sprint(o.Limit))
	}
	id, err := app.Project()
	if err != nil {
		return err
	}
	var db *store.DB
	if o.Rescan {
		if db, err = app.WriteStore(ctx); err != nil {
			return err
		}
		if err := rescan(ctx, db, id.Key); err != nil {
			return err
		}
	} else if db, err = app.ReadStore(ctx); err != nil {
		return err
	}
	f, err := db.FlaggedRecords(ctx, id.Key, o.All, o.Limit)
	if err != nil {
		return err
	}
	if app.JSON {
		return PrintJSON(app.Out, f)
	}
	w := app.Text()
	if len(f.Observations)+len(f.Summaries) == 0 {
		fmt.Fprintf(w, "nothing flagged in project %s\n", id.Key)
		return nil
	}
	for _, x := range f.Observations {
		fmt.Fprintf(w, "#%d %s %s %s: %q%s\n   %s\n", x.ID, x.Type, day(x.CreatedAt), x.Flag, x.Span, releasedNote(x.Review), oneLine(x.Title))
	}
	for _, x := range f.Summaries {
		fmt.Fprintf(w, "S%d summary %s %s: %q%s\n   session %s\n", x.ID, day(x.CreatedAt), x.Flag, x.Span, releasedNote(x.Review), x.SessionID)
	}
	fmt.Fprintln(w, "mem get ID shows a record; mem review release ID lets it through; mem review forget ID deletes it")
	return nil
}

func releasedNote(r memory.Review) string {
	if r.Released {
		return " (released)"
	}
	return ""
}

// rescan checks every record of a project with today's rules and stores
// what changed.
func rescan(ctx context.Context, db *store.DB, project string) error {
	obs, sums := map[int64]memory.Review{}, map[int64]memory.Review{}
	err := db.EachForReview(ctx, project, func(o memory.Observation) {
		if r := guard.RecheckObservation(o); r != o.Review {
			obs[o.ID] = r
		}
	}, func(s memory.Summary) {
		if r := guard.RecheckSummary(s); r != s.Review {
			sums[s.ID] = r
		}
	})
	if err != nil {
		return err
	}
	return db.SetReview(ctx, obs, sums)
}

func runReviewRelease(ctx context.Context, app *App, args []string) error {
	if len(args) == 0 {
		return Invalid("release", "one or more ids (123, #123, S12)", "")
	}
	var obs, sums []int64
	for _, a := range args {
		r, err := parseRef(a)
		if err != nil {
			return err
		}
		if r.Prompt {
			return Invalid("id", "an observation (123) or summary (S12) id: prompts are the user's own words, never flagged", a)
		}
		if r.Summary {
			sums = append(sums, r.ID)
		} else {
			obs = append(obs, r.ID)
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
	if err := db.Release(ctx, id.Key, obs, sums); err != nil {
		return err
	}
	if app.JSON {
		return PrintJSON(app.Out, map[string]int{"released": len(obs) + len(sums)})
	}
	fmt.Fprintf(app.Out, "released %d records: they can be given to the agent again\n", len(obs)+len(sums))
	return nil
}
