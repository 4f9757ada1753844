package fullcli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/memhq/mem/internal/cli"
	"github.com/memhq/mem/internal/config"
	"github.com/memhq/mem/internal/progress"
	"github.com/memhq/mem/internal/team"
	"github.com/memhq/mem/internal/termsafe"
)

type syncOptions struct {
	Status     bool
	PushOnly   bool
	PullOnly   bool
	Quiet      bool
	Background bool
	Deadline   time.Duration
	Project    string // empty: every shared project
}

func newSyncCmd(app *cli.App) *cobra.Command {
	var o syncOptions
	cmd := &cobra.Command{
		Use:   "sync",
		Short: cli.FullShort("sync"),
		Long: `Push what this machine has that the team's cluster lacks and pull what it lacks, for every
project shared with mem share (only the one named with --project, when given). Sessions,
observations and summaries travel, with their uuid, project and origin machine; prompts never do.
A forgotten record travels as a tombstone and is never brought back. The newest summary of a
session wins. Syncing twice changes nothing; a sync cut off anywhere goes on from where it stopped.
What is pushed passes the privacy filter again; the host name and the sessions' folders go only
with sync.share_machine. A row of the cluster that is no record of its project (another project's,
not a record, over 1 MiB) is quarantined: said on stderr, skipped, counted by --status. A project
that fails does not stop the others; the sync then exits 1 naming it.

--status says, per shared project, what is waiting to be pushed and pulled and when it last synced.
--background is for the jobs that sync on their own (after a session ends, nightly): it prints
nothing, never fails (exit 0) and logs a problem to the hook log. The cluster is set with
mem remote set; see internal/team/README.md for a team's set-up.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("project") {
				id, err := app.Project()
				if err != nil {
					return err
				}
				o.Project = id.Key
			}
			if o.PushOnly && o.PullOnly {
				return cli.Invalid("--push-only", "not together with --pull-only", "")
			}
			if !cmd.Flags().Changed("deadline") {
				o.Deadline = app.Config().Settings.Sync.Deadline
				if o.Status {
					o.Deadline = min(o.Deadline, statusDeadline)
				}
			}
			if o.Deadline <= 0 {
				return cli.Invalid("--deadline", "a positive duration such as 30s", o.Deadline.String())
			}
			if o.Status {
				return runSyncStatus(cmd.Context(), app, o)
			}
			err := runSync(cmd.Context(), app, o)
			if err != nil && o.Background {
				app.LogBackground(err)
				return nil
			}
			return err
		},
	}
	f := cmd.Flags()
	f.BoolVar(&o.Status, "status", false, "say which nodes answer and which leads, and per project what is pending each way and when it last synced (within 5 s unless --deadline)")
	f.BoolVar(&o.PushOnly, "push-only", false, "push, do not pull")
	f.BoolVar(&o.PullOnly, "pull-only", false, "pull, do not push")
	f.BoolVar(&o.Quiet, "quiet", false, "print nothing when all went well")
	f.BoolVar(&o.Background, "background", false, "for jobs: quiet, exit 0, problems go to the hook log")
	f.DurationVar(&o.Deadline, "deadline", 0, "give up after this long (default sync.deadline)")
	return cmd
}

// remote builds the cluster's address and credentials from the settings.
func remote(app *cli.App) (team.Remote, error) {
	s := app.Config().Settings.Sync
	if len(s.URL) == 0 {
		return team.Remote{}, cli.UsageErr(team.ErrNotConfigured)
	}
	urls, err := config.NodeURLs(strings.Join(s.URL, ","))
	if err != nil {
		return team.Remote{}, cli.UsageErr(err)
	}
	return team.Remote{URLs: urls, User: s.User, Password: s.Password, CAFile: s.CAFile, Timeout: s.Timeout}, nil
}

func runSync(ctx context.Context, app *cli.App, o syncOptions) error {
	r, err := remote(app)
	if err != nil {
		return err
	}
	db, err := app.WriteStore(ctx)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, o.Deadline)
	defer cancel()
	set := app.Config().Settings.Sync
	if !team.ValidReview(set.Review) {
		return cli.Invalid("sync.review", "off, flagged or all", set.Review)
	}
	// Records pushed and pulled, counted on a terminal as they go.
	var bar *progress.Bar
	if !o.Quiet && !o.Background {
		bar = progress.New(app.Err, 0, "syncing", progress.Items)
		defer bar.Finish()
	}
	opts := team.Options{Remote: r, PushOnly: o.PushOnly, PullOnly: o.PullOnly, Now: app.Now, Page: set.Page, ShareMachine: set.ShareMachine,
		Review: set.Review,
		Warn: func(line string) {
			if o.Background {
				app.LogBackground(errors.New(line))
			} else {
				warning := "mem: warning: " + termsafe.Line(line)
				if bar != nil {
					bar.Println(warning)
				} else {
					fmt.Fprintln(app.Err, warning)
				}
			}
		}}
	if o.Project != "" {
		opts.Projects = []string{o.Project}
	}
	if bar != nil {
		opts.Progress = func(_, _ string, n int) { bar.Add(int64(n)) }
	}
	res, err := team.Sync(ctx, db, opts)
	bar.Finish() // before the results, which go below it
	switch {
	case errors.Is(err, team.ErrNewerSchema):
		return cli.UsageErr(err) // as with a database file newer than mem
	case errors.Is(err, team.ErrAuth):
		return fmt.Errorf("%w (user %q; set it with mem remote set --user U --password-stdin)", err, r.User)
	case err != nil && len(res.Projects) == 0, o.Quiet || o.Background:
		return err
	}
	// What the projects that went on did is said, then what failed.
	if app.JSON {
		if perr := cli.PrintJSON(app.Out, res); perr != nil {
			return perr
		}
		return err
	}
	w := app.Text()
	if len(res.Projects) == 0 {
		fmt.Fprintln(w, "no project is shared, so nothing was synced: mem share (in a project) shares it")
		return nil
	}
	fmt.Fprintf(w, "cluster %s, this machine %s\n", res.Cluster, res.Origin)
	for _, p := range res.Projects {
		if p.Error != "" {
			fmt.Fprintf(w, "%s: failed (below)\n", p.Project)
			continue
		}
		withheld := ""
		if p.Withheld > 0 {
			withheld = fmt.Sprintf(" (%d withheld)", p.Withheld)
		}
		fmt.Fprintf(w, "%s: pushed %d%s, pulled %d new, %d newer summaries, %d forgotten%s (cursor %d)\n",
			p.Project, p.Pushed, withheld, p.Pulled.Added, p.Pulled.Updated, p.Pulled.Removed, quarantined(int64(p.Pulled.Quarantined)), p.Cursor)
	}
	return err
}

// quarantined says how many of the cluster's rows were set aside, when any.
func quarantined(n int64) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", %d quarantined", n)
}

// statusDeadline bounds mem sync --status unless --deadline says otherwise:
// a person waiting for it is told within it which nodes answered.
const statusDeadline = 5 * time.Second

func runSyncStatus(ctx context.Context, app *cli.App, o syncOptions) error {
	r, err := remote(app)
	if err != nil {
		return err
	}
	db, err := app.ReadStore(ctx)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, o.Deadline)
	defer cancel()
	st, err := team.Status(ctx, db, r, o.Project, app.Config().Settings.Sync.ShareMachine)
	if err != nil {
		return err
	}
	if app.JSON {
		return cli.PrintJSON(app.Out, st)
	}
	w := app.Text()
	if st.Reachable {
		fmt.Fprintf(w, "cluster %s: %d of %d nodes up\n", st.Cluster, st.NodesUp, len(st.Nodes))
	} else {
		fmt.Fprintf(w, "cluster unreachable (%d of %d nodes up): %s\n", st.NodesUp, len(st.Nodes), st.Problem)
	}
	for _, n := range st.Nodes {
		switch {
		case !n.Up:
			fmt.Fprintf(w, "  node %s: down (%s)\n", n.URL, n.Problem)
		case n.Problem != "":
			fmt.Fprintf(w, "  node %s: %s, id %s, %s\n", n.URL, n.State, n.ID, n.Problem)
		default:
			fmt.Fprintf(w, "  node %s: %s, id %s\n", n.URL, n.State, n.ID)
		}
	}
	if len(st.Projects) == 0 {
		fmt.Fprintln(w, "no project is shared: mem share (in a project) shares it")
	}
	for _, p := range st.Projects {
		pull := "?"
		if p.PendingPull >= 0 {
			pull = fmt.Sprint(p.PendingPull)
		}
		last := "never"
		if !p.SyncedAt.IsZero() {
			last = cli.Stamp(p.SyncedAt)
		}
		fmt.Fprintf(w, "%s: %d to push, %s to pull, last synced %s%s\n", p.Project, p.Pending, pull, last, quarantined(p.Quarantined))
	}
	return nil
}
