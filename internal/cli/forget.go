package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/memhq/mem/internal/hook"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/spool"
	"github.com/memhq/mem/internal/store"
)

type forgetOptions struct {
	IDs     []string
	Session string
	Project bool
	Yes     bool
}

func newForgetCmd(app *App) *cobra.Command {
	var o forgetOptions
	cmd := &cobra.Command{
		Use:   "forget (ID... | --session S | --project P --yes | --whole-project --yes)",
		Short: "Delete observations, summaries, a session or a whole project, index entries included",
		Long: `Delete for good: observations and summaries by id (123, #123, S12), a session with everything
recorded in it (--session), or every session of a project: --project P alone, or --whole-project
for the working directory's project; both need --yes. Several ids are forgotten together: when one
is missing or cannot be deleted, none is. Forgotten text is gone from the database
file too: the space it took is overwritten, the search index drops it and the WAL is emptied
(waiting, as any write does, for other processes to let go of it; when they keep it longer, the
forget is done all the same and a note says the WAL holds older pages until its next checkpoint).
A forgotten session or project also leaves the hook spool: its events still waiting there or set
aside are overwritten and deleted. A forgotten summary is not written again from the session's
activity so far; if the session goes on, the nightly job gives it a new one, and team sync
carries that newer summary while keeping the forgotten one away.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.IDs = args
			if len(args) == 0 && o.Session == "" && cmd.Flags().Changed("project") {
				o.Project = true // mem forget --project P --yes
			}
			return runForget(cmd.Context(), app, o)
		},
	}
	cmd.Flags().StringVar(&o.Session, "session", "", "forget this session and everything in it")
	cmd.Flags().BoolVar(&o.Project, "whole-project", false, "forget the whole project")
	cmd.Flags().BoolVar(&o.Yes, "yes", false, "confirm forgetting a whole project")
	return cmd
}

func runForget(ctx context.Context, app *App, o forgetOptions) error {
	modes := 0
	for _, set := range []bool{len(o.IDs) > 0, o.Session != "", o.Project} {
		if set {
			modes++
		}
	}
	if modes != 1 {
		return Invalid("forget", "exactly one of: ids, --session S, --whole-project", "")
	}
	var refs []memory.Ref
	for _, a := range o.IDs {
		r, err := parseRef(a)
		if err != nil {
			return err
		}
		if r.Prompt {
			return Invalid("id", "an observation (123) or summary (S12) id: a prompt is forgotten with its session (--session)", a)
		}
		refs = append(refs, r)
	}
	if o.Session != "" {
		if err := SessionArg(&o.Session); err != nil {
			return err
		}
	}
	var projectKey string
	if o.Project {
		id, err := app.Project()
		if err != nil {
			return err
		}
		projectKey = id.Key
		if !o.Yes {
			return Invalid("--yes", "given to confirm forgetting every session of project "+projectKey, "")
		}
	}
	db, err := app.WriteStore(ctx)
	if err != nil {
		return err
	}
	var total forgotten
	if o.Session != "" || o.Project {
		total, err = forgetWithSpool(ctx, db, o.Session, projectKey) // o.Session as stored: SessionArg mapped it
	} else {
		// Check every id first so that a typo deletes nothing.
		if err := checkRefs(ctx, db, refs); err != nil {
			return err
		}
		// One transaction: a failure part-way deletes none of them.
		var obs, sums []int64
		for _, r := range refs {
			if r.Summary {
				sums = append(sums, r.ID)
			} else {
				obs = append(obs, r.ID)
			}
		}
		total.Deleted, err = db.DeleteRecords(ctx, obs, sums)
	}
	if errors.Is(err, store.ErrWALKept) {
		// Deleted all the same: a note, not a failure.
		fmt.Fprintf(app.Err, "mem: note: %s\n", err)
		err = nil
	}
	if err != nil {
		return err
	}
	if app.JSON {
		return PrintJSON(app.Out, total)
	}
	fmt.Fprintf(app.Out, "forgot %d sessions, %d observations, %d summaries, %d prompts",
		total.Sessions, total.Observations, total.Summaries, total.Prompts)
	if total.SpooledEvents > 0 {
		fmt.Fprintf(app.Out, ", %d spooled hook events", total.SpooledEvents)
	}
	fmt.Fprintln(app.Out)
	return nil
}

// forgotten is what a forget removed: records, and hook events that waited
// in the spool or were set aside there.
type forgotten struct {
	store.Deleted
	SpooledEvents int `json:"spooled_events"`
}

// forgetWithSpool deletes a session (or, with session empty, a project)
// and its hook events in the spool: the ones WriteStore could not apply,
// set aside ones and any spooled since, even while the delete ran
// (spool.Dir.Forget).
func forgetWithSpool(ctx context.Context, db *store.DB, session, project string) (forgotten, error) {
	var total forgotten
	var err error
	total.SpooledEvents, err = spool.Beside(db.Path()).Forget(time.Now().Add(hook.ApplyFor), func() (err error) {
		if session != "" {
			total.Deleted, err = db.DeleteSession(ctx, session)
		} else {
			total.Deleted, err = db.DeleteProject(ctx, project)
		}
		return err
	}, hook.SpooledOf(session, project))
	return total, err
}

func checkRefs(ctx context.Context, db *store.DB, refs []memory.Ref) error {
	var obs []int64
	for _, r := range refs {
		if r.Summary {
			if _, err := db.Summary(ctx, r.ID); err != nil {
				return err
			}
			continue
		}
		obs = append(obs, r.ID)
	}
	_, err := db.Observations(ctx, obs)
	return err
}
