package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memhq/mem/internal/agent"
	"github.com/memhq/mem/internal/hook"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/privacy"
	"github.com/memhq/mem/internal/remember"
	"github.com/memhq/mem/internal/spool"
	"github.com/memhq/mem/internal/store"
)

func newSessionCmd(app *App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "session",
		Short: "Start, end, list and show agent sessions",
	}
	cmd.AddCommand(newSessionStartCmd(app), newSessionEndCmd(app), newSessionListCmd(app), newSessionShowCmd(app))
	return cmd
}

type sessionStartOptions struct {
	ID        string
	Agent     string
	AgentType string
	Cwd       string
	Parent    string
}

func newSessionStartCmd(app *App) *cobra.Command {
	var o sessionStartOptions
	cmd := &cobra.Command{
		Use:   "start --session ID",
		Short: "Start a session, or resume it if it exists",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runSessionStart(cmd.Context(), app, o)
		},
	}
	cmd.Flags().StringVar(&o.ID, "session", "", "session id (required)")
	var agents []string
	for _, a := range agent.All() {
		agents = append(agents, a.Adapter.Agent())
	}
	cmd.Flags().StringVar(&o.Agent, "agent", "", "agent name: "+strings.Join(agents, ", ")+", ...")
	cmd.Flags().StringVar(&o.AgentType, "agent-type", "", "agent type: build, plan, ...")
	cmd.Flags().StringVar(&o.Cwd, "cwd", "", "the session's working directory (default: this one); decides the project")
	cmd.Flags().StringVar(&o.Parent, "parent", "", "parent session id, for a subagent's session")
	return cmd
}

func runSessionStart(ctx context.Context, app *App, o sessionStartOptions) error {
	if err := SessionArg(&o.ID); err != nil {
		return err
	}
	if o.Cwd == "" {
		wd, err := app.Getwd()
		if err != nil {
			return err
		}
		o.Cwd = wd
	}
	id, err := app.ProjectOf(o.Cwd)
	if err != nil {
		return err
	}
	db, err := app.WriteStore(ctx)
	if err != nil {
		return err
	}
	s, created, err := db.StartSession(ctx, memory.Session{ID: o.ID, Project: id.Key, Agent: o.Agent,
		AgentType: o.AgentType, Cwd: o.Cwd, ParentID: privacy.SessionKey(o.Parent), StartedAt: app.Now()})
	if err != nil {
		return err
	}
	if app.JSON {
		return PrintJSON(app.Out, map[string]any{"session": s, "created": created})
	}
	verb := "resumed"
	if created {
		verb = "started"
	}
	fmt.Fprintf(app.Text(), "%s session %s in project %s\n", verb, s.ID, s.Project)
	return nil
}

func newSessionEndCmd(app *App) *cobra.Command {
	var id string
	cmd := &cobra.Command{
		Use:   "end --session ID",
		Short: "Mark a session ended (its pending context is dropped)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := SessionArg(&id); err != nil {
				return err
			}
			db, err := app.WriteStore(cmd.Context())
			if err != nil {
				return err
			}
			s, err := db.EndSession(cmd.Context(), id, app.Now())
			if err != nil {
				return err
			}
			if app.JSON {
				return PrintJSON(app.Out, s)
			}
			fmt.Fprintf(app.Text(), "ended session %s\n", s.ID)
			return nil
		},
	}
	cmd.Flags().StringVar(&id, "session", "", "session id (required)")
	return cmd
}

type sessionListOptions struct {
	All    bool
	Status string
	Limit  int
}

func newSessionListCmd(app *App) *cobra.Command {
	var o sessionListOptions
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the project's sessions, most recently active first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runSessionList(cmd.Context(), app, o)
		},
	}
	cmd.Flags().BoolVar(&o.All, "all-projects", false, "list sessions of every project")
	cmd.Flags().StringVar(&o.Status, "status", "", "only sessions with this status: active or ended")
	cmd.Flags().IntVar(&o.Limit, "limit", 20, "at most this many sessions")
	return cmd
}

func runSessionList(ctx context.Context, app *App, o sessionListOptions) error {
	if o.Status != "" && o.Status != memory.StatusActive && o.Status != memory.StatusEnded {
		return Invalid("--status", "active or ended", o.Status)
	}
	if o.Limit < 1 {
		return Invalid("--limit", "a number >= 1", fmt.Sprint(o.Limit))
	}
	f := store.SessionFilter{Status: o.Status, Limit: o.Limit}
	if !o.All {
		id, err := app.Project()
		if err != nil {
			return err
		}
		f.Project = id.Key
	}
	db, err := app.ReadStore(ctx)
	if err != nil {
		return err
	}
	list, err := db.ListSessions(ctx, f)
	if err != nil {
		return err
	}
	if app.JSON {
		return PrintJSON(app.Out, list)
	}
	if len(list) == 0 {
		fmt.Fprintln(app.Out, "no sessions")
		return nil
	}
	w := app.Text()
	for _, s := range list {
		fmt.Fprintf(w, "%s  %-6s  %s  %-12s  %d prompts  %s\n", Stamp(s.LastActivityAt), s.Status,
			s.ID, s.Agent, s.PromptCount, s.Project)
	}
	return nil
}

func newSessionShowCmd(app *App) *cobra.Command {
	var id string
	cmd := &cobra.Command{
		Use:   "show --session ID",
		Short: "Show a session with its summary, prompts and observations",
		Long: `Show a session with its summary, prompts and observations. Hook events of it that wait in the
spool (captured while the database was busy) are listed as pending: this command only reads, and
the next hook or command that writes applies them.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if id == "" && len(args) == 1 {
				id = args[0]
			}
			return runSessionShow(cmd.Context(), app, id)
		},
	}
	cmd.Flags().StringVar(&id, "session", "", "session id (or give it as the argument)")
	return cmd
}

func runSessionShow(ctx context.Context, app *App, id string) error {
	if err := SessionArg(&id); err != nil {
		return err
	}
	db, err := app.ReadStore(ctx)
	if err != nil {
		return err
	}
	d, err := remember.Session(ctx, db, id)
	// What the hooks spooled for it is read, not applied: a command that
	// reads writes nothing.
	pending, perr := hook.Pending(spool.Beside(db.Path()), id)
	if errors.Is(err, memory.ErrNotFound) && len(pending) > 0 {
		first := pending[0]
		d = remember.SessionDetail{Session: memory.Session{ID: id, Project: first.Project, Agent: first.Agent,
			Cwd: first.Cwd, Status: statusPending, StartedAt: first.At, LastActivityAt: pending[len(pending)-1].At}}
		err = nil
	}
	if err != nil {
		return err
	}
	if perr != nil {
		fmt.Fprintf(app.Err, "mem: note: hook events waiting in the spool not read: %v\n", perr)
	}
	if app.JSON {
		return PrintJSON(app.Out, sessionShown{d, pending})
	}
	w := app.Text()
	writeSessionDetail(w, d)
	if len(pending) > 0 {
		fmt.Fprintln(w, "\npending, spooled while the database was busy (the next hook or command that writes applies them):")
		for _, p := range pending {
			fmt.Fprintf(w, "  %s  %s %s", Stamp(p.At), p.Agent, p.Event)
			if p.Tool != "" {
				fmt.Fprintf(w, " (%s)", p.Tool)
			}
			fmt.Fprintln(w)
		}
	}
	return nil
}

// statusPending is the status mem session show gives a session of which
// only spooled hook events are known yet.
const statusPending = "pending"

// sessionShown is what mem session show --json prints: the session as
// recorded, and its hook events still waiting in the spool.
type sessionShown struct {
	remember.SessionDetail
	Pending []hook.PendingEvent `json:"pending,omitempty"`
}

func writeSessionDetail(w io.Writer, d remember.SessionDetail) {
	s := d.Session
	fmt.Fprintf(w, "session %s (%s)\n", s.ID, s.Status)
	field(w, "project", s.Project)
	field(w, "agent", s.Agent)
	field(w, "agent type", s.AgentType)
	field(w, "cwd", s.Cwd)
	field(w, "parent", s.ParentID)
	field(w, "started", Stamp(s.StartedAt))
	field(w, "last activity", Stamp(s.LastActivityAt))
	if s.EndedAt != nil {
		field(w, "ended", Stamp(*s.EndedAt))
	}
	listField(w, "files read", s.FilesRead)
	if d.Summary != nil {
		writeSessionSummary(w, *d.Summary)
	}
	if len(d.Prompts) > 0 {
		fmt.Fprintln(w, "\nprompts:")
		for _, p := range d.Prompts {
			fmt.Fprintf(w, "  %d. %s\n", p.PromptNumber, oneLine(p.Text))
		}
	}
	if len(d.Observations) > 0 {
		fmt.Fprintln(w, "\nobservations:")
		for _, o := range d.Observations {
			fmt.Fprintf(w, "  #%d  %s  %-9s  %s\n", o.ID, Stamp(o.CreatedAt), o.Type, o.Title)
		}
	}
}

// writeSessionSummary prints a session's summary under its header: its text,
// or, for a summary written without one, its sections.
func writeSessionSummary(w io.Writer, sum memory.Summary) {
	fmt.Fprintf(w, "\nsummary S%d (%s):\n", sum.ID, sum.Generator)
	body := sum.Text
	if strings.TrimSpace(body) == "" {
		var b strings.Builder
		sum.Text = ""
		summaryFields(&b, sum)
		body = strings.TrimSuffix(b.String(), "\n")
	}
	if strings.TrimSpace(body) == "" {
		body = "(empty)"
	}
	fmt.Fprintf(w, "  %s\n", strings.ReplaceAll(body, "\n", "\n  "))
}
