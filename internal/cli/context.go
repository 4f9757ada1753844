package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memhq/mem/internal/collector"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/privacy"
	"github.com/memhq/mem/internal/tokens"
)

// openCollector opens the store and returns the collector over it.
func openCollector(ctx context.Context, app *App) (*collector.Collector, error) {
	db, err := app.WriteStore(ctx)
	if err != nil {
		return nil, err
	}
	return app.Engine().Collector(db), nil
}

type contextAddOptions struct {
	Session    string
	Source     string
	ID         string
	Priority   string
	Persistent bool
	Content    string
	contentSet bool
}

type contextSessionOptions struct {
	Session string
	Format  string // consume: text or xml
}

func newContextCmd(app *App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "context",
		Short: "Pending context delivered to a session at its next turn",
		Long: `Pending context is text waiting for a session's next turn. Sources register entries
under a source and an id (registering the same source and id again replaces the entry); a turn
consumes them, highest priority first (critical, high, normal, low), then oldest first.
Persistent entries are delivered on every turn until cleared; ending a session clears it.`,
	}
	cmd.AddCommand(newContextAddCmd(app), newContextConsumeCmd(app), newContextPendingCmd(app), newContextClearCmd(app),
		newContextPromptCmd(app), newContextTouchCmd(app))
	return cmd
}

func newContextAddCmd(app *App) *cobra.Command {
	var o contextAddOptions
	cmd := &cobra.Command{
		Use:   "add --session S --source SRC --id ID [--priority P] [--persistent] [--content TEXT | < stdin]",
		Short: "Register context for a session's next turn (content from --content or stdin)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.contentSet = cmd.Flags().Changed("content")
			return runContextAdd(cmd.Context(), app, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Session, "session", "", "session id (required)")
	f.StringVar(&o.Source, "source", "custom", "source name: letters, digits, '-', '_', '.'")
	f.StringVar(&o.ID, "id", "", "entry id; the same source and id replace the entry (required)")
	f.StringVar(&o.Priority, "priority", "normal", "critical, high, normal or low")
	f.BoolVar(&o.Persistent, "persistent", false, "deliver on every turn until cleared")
	f.StringVar(&o.Content, "content", "", "the text (default: stdin)")
	return cmd
}

func runContextAdd(ctx context.Context, app *App, o contextAddOptions) error {
	if err := SessionArg(&o.Session); err != nil {
		return err
	}
	p, err := collector.ParsePriority(o.Priority)
	if err != nil {
		return Invalid("--priority", "one of critical, high, normal, low", o.Priority)
	}
	if !o.contentSet {
		b, err := io.ReadAll(io.LimitReader(app.In, collector.MaxContentLen+1))
		if err != nil {
			return fmt.Errorf("reading the content from stdin: %w", err)
		}
		o.Content = string(b)
	}
	e := memory.PendingEntry{SessionID: o.Session, Source: o.Source, EntryID: o.ID,
		Content: privacy.Filter(o.Content), Priority: p, Persistent: o.Persistent}
	if err := collector.Validate(e); err != nil {
		// Name the flags the user typed.
		msg := err.Error()
		for _, f := range []string{"source", "id", "content", "priority"} {
			if strings.HasPrefix(msg, f+":") {
				return UsageErr(fmt.Errorf("--%s", msg))
			}
		}
		return UsageErr(err)
	}
	c, err := openCollector(ctx, app)
	if err != nil {
		return err
	}
	if err := c.Register(ctx, e); err != nil {
		return err
	}
	if app.JSON {
		return PrintJSON(app.Out, map[string]any{"registered": true, "source": e.Source, "id": e.EntryID,
			"priority": collector.PriorityName(p), "persistent": e.Persistent})
	}
	fmt.Fprintf(app.Text(), "registered %s:%s for session %s\n", e.Source, e.EntryID, e.SessionID)
	return nil
}

func newContextConsumeCmd(app *App) *cobra.Command {
	var o contextSessionOptions
	cmd := &cobra.Command{
		Use:   "consume --session S [--format text|xml] [--json]",
		Short: "Print and remove a session's pending context (persistent entries stay)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runContextConsume(cmd.Context(), app, o)
		},
	}
	cmd.Flags().StringVar(&o.Session, "session", "", "session id (required)")
	cmd.Flags().StringVar(&o.Format, "format", "text", "text (entries joined by --- lines) or xml (the hook delivery block)")
	return cmd
}

func runContextConsume(ctx context.Context, app *App, o contextSessionOptions) error {
	if err := SessionArg(&o.Session); err != nil {
		return err
	}
	if o.Format != "text" && o.Format != "xml" {
		return Invalid("--format", "text or xml", o.Format)
	}
	c, err := openCollector(ctx, app)
	if err != nil {
		return err
	}
	es, err := c.Consume(ctx, o.Session, 0)
	if err != nil {
		return err
	}
	return printEntries(app, es, o.Format)
}

func newContextPendingCmd(app *App) *cobra.Command {
	var o contextSessionOptions
	cmd := &cobra.Command{
		Use:   "pending --session S [--json]",
		Short: "List a session's pending context without consuming it",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runContextPending(cmd.Context(), app, o)
		},
	}
	cmd.Flags().StringVar(&o.Session, "session", "", "session id (required)")
	return cmd
}

func runContextPending(ctx context.Context, app *App, o contextSessionOptions) error {
	if err := SessionArg(&o.Session); err != nil {
		return err
	}
	c, err := openCollector(ctx, app)
	if err != nil {
		return err
	}
	es, err := c.Pending(ctx, o.Session)
	if err != nil {
		return err
	}
	if app.JSON {
		return PrintJSON(app.Out, entriesJSON(es))
	}
	if len(es) == 0 {
		fmt.Fprintln(app.Out, "no pending context")
		return nil
	}
	w := app.Text()
	for _, e := range es {
		flag := ""
		if e.Persistent {
			flag = " persistent"
		}
		fmt.Fprintf(w, "%s:%s  %s%s  %s  %d tokens\n", e.Source, e.EntryID, collector.PriorityName(e.Priority),
			flag, Stamp(e.CreatedAt), tokens.Estimate(e.Content))
	}
	return nil
}

func newContextClearCmd(app *App) *cobra.Command {
	var o contextSessionOptions
	cmd := &cobra.Command{
		Use:   "clear --session S [--json]",
		Short: "Drop all of a session's pending context, persistent entries included",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runContextClear(cmd.Context(), app, o)
		},
	}
	cmd.Flags().StringVar(&o.Session, "session", "", "session id (required)")
	return cmd
}

func runContextClear(ctx context.Context, app *App, o contextSessionOptions) error {
	if err := SessionArg(&o.Session); err != nil {
		return err
	}
	c, err := openCollector(ctx, app)
	if err != nil {
		return err
	}
	n, err := c.Clear(ctx, o.Session)
	if err != nil {
		return err
	}
	if app.JSON {
		return PrintJSON(app.Out, map[string]any{"cleared": n})
	}
	fmt.Fprintf(app.Out, "cleared %d entries\n", n)
	return nil
}

type entryJSON struct {
	Source     string `json:"source"`
	ID         string `json:"id"`
	Priority   string `json:"priority"`
	Persistent bool   `json:"persistent"`
	CreatedAt  string `json:"created_at"`
	Content    string `json:"content"`
}

func entriesJSON(es []memory.PendingEntry) []entryJSON {
	out := make([]entryJSON, len(es))
	for i, e := range es {
		out[i] = entryJSON{Source: e.Source, ID: e.EntryID, Priority: collector.PriorityName(e.Priority),
			Persistent: e.Persistent, CreatedAt: e.CreatedAt.UTC().Format("2006-01-02T15:04:05.000Z07:00"), Content: e.Content}
	}
	return out
}

func printEntries(app *App, es []memory.PendingEntry, format string) error {
	switch {
	case app.JSON:
		return PrintJSON(app.Out, entriesJSON(es))
	case len(es) == 0:
		return nil
	case format == "xml":
		_, err := fmt.Fprintln(app.Out, collector.Render(es))
		return err
	}
	_, err := fmt.Fprintln(app.Text(), collector.Merge(es))
	return err
}
