package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/progress"
	"github.com/memhq/mem/internal/remember"
	"github.com/memhq/mem/internal/retain"
	"github.com/memhq/mem/internal/store"
	"github.com/memhq/mem/internal/summarize"
)

type summarizeOptions struct {
	Session    string
	Pending    bool
	Maintain   bool
	Idle       time.Duration
	Limit      int
	DryRun     bool
	LLMCmd     string
	Timeout    time.Duration
	Extractive bool
	MaxTokens  int
}

func newSummarizeCmd(app *App) *cobra.Command {
	var o summarizeOptions
	cmd := &cobra.Command{
		Use:   "summarize (--session ID | --pending | --maintain)",
		Short: "Write session summaries: one session now, or every pending one (the nightly job)",
		Long: `Write the one summary each session keeps.

  --session ID   summarize one session now (replacing its summary)
  --pending      the nightly job: summarize every ended session without a summary, every open
                 session idle longer than --idle, every session whose summary is older than its
                 newest observation and, when a model command is configured, every session whose
                 summary is still extractive; then run maintenance (unless --maintain=false)
  --maintain     maintenance only: drop pending context of sessions ended over a day ago,
                 merge the FTS5 indexes, PRAGMA optimize, truncate the WAL; a step other
                 processes keep the database from for longer than a command waits is
                 skipped and named (the next run does it), not a failure

The extractive summarizer (deterministic, no network) is the default. With --llm-cmd (or
summarize.llm_cmd) a shell command gets the session as JSON on stdin and prints the summary as
JSON; a timeout, a non-zero exit or unusable output falls back to the extractive summary for that
session and says so. One --pending run at a time: a second one exits 0 and says who holds the
lease until when.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f := cmd.Flags()
			if !f.Changed("maintain") {
				o.Maintain = o.Pending
			}
			if !f.Changed("idle") {
				o.Idle = app.Config().Settings.Summarize.Idle
			}
			if !f.Changed("llm-cmd") {
				o.LLMCmd = app.Config().Settings.Summarize.LLMCmd
			}
			if !f.Changed("timeout") {
				o.Timeout = app.Config().Settings.Summarize.Timeout
			}
			return runSummarize(cmd.Context(), app, o, f.Changed("maintain"))
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Session, "session", "", "summarize this session now")
	f.BoolVar(&o.Pending, "pending", false, "summarize every pending session (the nightly job)")
	f.BoolVar(&o.Maintain, "maintain", false, "run maintenance (default: on with --pending)")
	f.DurationVar(&o.Idle, "idle", 2*time.Hour, "an open session idle this long counts as finished (default: summarize.idle)")
	f.IntVar(&o.Limit, "limit", 0, "summarize at most this many sessions (0: all)")
	f.BoolVar(&o.DryRun, "dry-run", false, "show what would be summarized; write nothing")
	f.StringVar(&o.LLMCmd, "llm-cmd", "", "shell command that summarizes a session, JSON in and out (default: summarize.llm_cmd)")
	f.DurationVar(&o.Timeout, "timeout", summarize.DefaultTimeout, "time the --llm-cmd may take per session (default: summarize.timeout)")
	f.BoolVar(&o.Extractive, "extractive", false, "use the extractive summarizer even when a model command is configured")
	f.IntVar(&o.MaxTokens, "max-tokens", summarize.DefaultMaxTokens, "token bound of one summary")
	return cmd
}

func runSummarize(ctx context.Context, app *App, o summarizeOptions, maintainSet bool) error {
	modes := 0
	for _, on := range []bool{o.Session != "", o.Pending, o.Maintain && !o.Pending} {
		if on {
			modes++
		}
	}
	switch {
	case modes == 0:
		return Invalid("mode", "one of --session ID, --pending or --maintain", "")
	case o.Session != "" && o.Pending:
		return Invalid("--session", "not combined with --pending", o.Session)
	case o.Session != "" && maintainSet && o.Maintain:
		return Invalid("--maintain", "not combined with --session", "true")
	case o.Limit < 0:
		return Invalid("--limit", "a number >= 0", fmt.Sprint(o.Limit))
	case o.Idle < 0:
		return Invalid("--idle", "a duration >= 0 such as 30m or 2h", o.Idle.String())
	case o.Timeout <= 0:
		return Invalid("--timeout", "a duration > 0 such as 30s", o.Timeout.String())
	case o.MaxTokens < 50:
		return Invalid("--max-tokens", "a number >= 50", fmt.Sprint(o.MaxTokens))
	}
	if o.Session != "" {
		if err := SessionArg(&o.Session); err != nil {
			return err
		}
	}
	// Stop between sessions on Ctrl-C or SIGTERM, releasing the lease.
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	db, err := app.WriteStore(ctx)
	if err != nil {
		return err
	}
	opts := summarize.Options{MaxTokens: o.MaxTokens, Now: app.Now}
	if o.LLMCmd != "" && !o.Extractive {
		opts.Summarizer = summarize.Command{Cmd: o.LLMCmd, Timeout: o.Timeout, MaxTokens: o.MaxTokens}
	}
	if o.Session != "" {
		return summarizeOne(ctx, app, db, o, opts)
	}
	start := time.Now()
	n := remember.Nightly{Pending: o.Pending, Summarize: opts, Idle: o.Idle, Limit: o.Limit, DryRun: o.DryRun,
		Maintain: o.Maintain}
	if o.Pending {
		n.Retain = retentionPolicy(app.Config())
	}
	var prog *jobProgress
	if o.Pending {
		prog = newJobProgress(app.Err)
		if !o.DryRun {
			n.Progress = prog.event
		}
	}
	r, err := app.Engine().Nightly(ctx, db, n)
	if prog != nil {
		prog.finish()
	}
	rep := r.Summaries
	switch {
	case err != nil:
		if rep != nil && rep.Summarized > 0 {
			fmt.Fprintf(app.Err, "mem: summarize stopped after %d of %d sessions (each one done is kept)\n",
				rep.Summarized, rep.Pending)
		}
		return err
	case rep != nil && rep.LeaseHolder != "":
		fmt.Fprintf(app.Err, "mem: another summarize run (%s) holds the lease until %s; nothing done\n",
			rep.LeaseHolder, rep.LeaseUntil.Local().Format(time.RFC3339))
		if app.JSON {
			return PrintJSON(app.Out, rep)
		}
		return nil
	case o.Pending && !o.DryRun:
		backgroundSync(ctx, app) // the nightly job: the new summaries go to the team too
	}
	out := summarizeReport{Report: rep, Retention: r.Retention, Maintenance: r.Maintenance}
	out.ElapsedMillis = time.Since(start).Milliseconds()
	if app.JSON {
		return PrintJSON(app.Out, out)
	}
	if out.Report != nil && out.Report.DryRun {
		for _, s := range out.Report.Sessions {
			fmt.Fprintf(app.Text(), "%s\t%s\n", s.ID, s.Reason)
		}
		if out.Retention != nil {
			for _, id := range out.Retention.IDs {
				fmt.Fprintf(app.Text(), "#%d\twould be forgotten or folded\n", id)
			}
		}
	}
	fmt.Fprintln(app.Out, out.line())
	return nil
}

func summarizeOne(ctx context.Context, app *App, db *store.DB, o summarizeOptions, opts summarize.Options) error {
	res, err := remember.SummarizeSession(ctx, db, o.Session, opts, o.DryRun)
	if errors.Is(err, memory.ErrNotFound) {
		return Invalid("--session", "the id of an existing session", o.Session)
	}
	if err != nil {
		return err
	}
	if res.Fallback != "" {
		fmt.Fprintln(app.Err, "mem: "+res.Fallback)
	}
	if app.JSON {
		if res.Skipped != "" {
			return PrintJSON(app.Out, map[string]string{"session_id": o.Session, "skipped": res.Skipped})
		}
		return PrintJSON(app.Out, res)
	}
	w := app.Text()
	if res.Skipped != "" {
		fmt.Fprintf(w, "session %s not summarized: %s\n", o.Session, res.Skipped)
		return nil
	}
	s := res.Summary
	verb := "summarized"
	if o.DryRun {
		verb = "would summarize"
	}
	fmt.Fprintf(w, "%s session %s (%s, %d tokens)\n", verb, s.SessionID, s.Generator, s.TokenCount)
	summaryFields(w, s)
	return nil
}

type summarizeReport struct {
	*summarize.Report
	Maintenance   *store.MaintainReport `json:"maintenance,omitempty"`
	Retention     *retain.Report        `json:"retention,omitempty"`
	ElapsedMillis int64                 `json:"elapsed_ms"`
}

// line is the one-line report of a run.
func (r summarizeReport) line() string {
	var parts []string
	if rep := r.Report; rep != nil {
		reasons := map[string]int{}
		for _, s := range rep.Sessions {
			reasons[s.Reason]++
		}
		var why []string
		for k, n := range reasons {
			why = append(why, fmt.Sprintf("%d %s", n, k))
		}
		sort.Strings(why)
		detail := ""
		if len(why) > 0 {
			detail = " (" + strings.Join(why, ", ") + ")"
		}
		switch {
		case rep.Pending == 0:
			parts = append(parts, "nothing to summarize")
		case rep.DryRun:
			parts = append(parts, fmt.Sprintf("%d sessions pending%s; dry run, nothing written", rep.Pending, detail))
		default:
			p := fmt.Sprintf("summarized %d of %d pending sessions%s", rep.Summarized, rep.Pending, detail)
			if rep.Fallbacks > 0 {
				p += fmt.Sprintf(", %d with the extractive fallback", rep.Fallbacks)
			}
			if rep.Skipped > 0 {
				p += fmt.Sprintf(", %d skipped", rep.Skipped)
			}
			parts = append(parts, p)
		}
	}
	if r.Retention != nil && r.Retention.Total()+r.Retention.Quoted > 0 {
		parts = append(parts, retentionLine(*r.Retention))
	}
	if m := r.Maintenance; m != nil {
		wal := "WAL truncated"
		if m.WALBusy {
			wal = "WAL checkpoint partial (readers active)"
		}
		p := fmt.Sprintf("maintenance: %d stale pending entries dropped, %d indexes optimized, %s",
			m.PendingDropped, m.FTSOptimized, wal)
		if len(m.Skipped) > 0 {
			p += fmt.Sprintf(" (skipped, the database stayed busy; the next run does them: %s)", strings.Join(m.Skipped, ", "))
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "; ") + fmt.Sprintf(" in %.1fs", float64(r.ElapsedMillis)/1000)
}

// jobProgress shows the job's progress on stderr: a bar with rate and time
// left on a terminal, else one line per session (for log files).
type jobProgress struct {
	w   io.Writer
	tty bool
	bar *progress.Bar
}

func newJobProgress(w io.Writer) *jobProgress {
	return &jobProgress{w: w, tty: progress.IsTerminal(w)}
}

func (p *jobProgress) event(e summarize.Event) {
	s := e.Session
	if !p.tty {
		what := s.Generator
		switch {
		case s.Skipped != "":
			what = "skipped: " + s.Skipped
		}
		fmt.Fprintf(p.w, "summarize: [%d/%d] %s (%s): %s\n", e.Done, e.Total, s.ID, s.Reason, what)
		if s.Fallback != "" {
			fmt.Fprintf(p.w, "summarize: %s: %s\n", s.ID, s.Fallback)
		}
		return
	}
	if p.bar == nil {
		p.bar = progress.New(p.w, int64(e.Total), "summarizing", progress.Items)
	}
	if s.Fallback != "" {
		p.bar.Println(s.ID + ": " + s.Fallback)
	}
	p.bar.Set(int64(e.Done))
}

func (p *jobProgress) finish() { p.bar.Finish() }
