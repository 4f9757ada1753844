package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/privacy"
	"github.com/memhq/mem/internal/triggers"
)

type contextPromptOptions struct {
	Session string
	Text    string
}

func newContextPromptCmd(app *App) *cobra.Command {
	var o contextPromptOptions
	cmd := &cobra.Command{
		Use:   "prompt --session S [--text TEXT | < stdin]",
		Short: "Run a prompt's context sources and print what the session gets at this turn",
		Long: `Runs what a prompt hook runs: configured keywords register their text; code symbols, file
paths and questions in the prompt search the project's memory (helped by the session's last few
triggers; a prompt with none of its own searches nothing), and results above context.min_relevance
are registered within context.prompt_budget tokens, never an observation the session already got. Then the session's pending context is consumed and printed as
the XML block a hook delivers (nothing when there is none).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runContextPrompt(cmd.Context(), app, o, cmd.Flags().Changed("text"))
		},
	}
	cmd.Flags().StringVar(&o.Session, "session", "", "session id (required)")
	cmd.Flags().StringVar(&o.Text, "text", "", "the prompt (default: stdin)")
	return cmd
}

func runContextPrompt(ctx context.Context, app *App, o contextPromptOptions, textSet bool) error {
	if err := SessionArg(&o.Session); err != nil {
		return err
	}
	if !textSet {
		b, err := io.ReadAll(io.LimitReader(app.In, memory.MaxTextLen+1))
		if err != nil {
			return fmt.Errorf("reading the prompt from stdin: %w", err)
		}
		o.Text = string(b)
	}
	if len(o.Text) > memory.MaxTextLen {
		return Invalid("--text", "at most 64 KiB", "")
	}
	s, err := contextSession(app, o.Session)
	if err != nil {
		return err
	}
	db, err := app.WriteStore(ctx)
	if err != nil {
		return err
	}
	block, rep, err := app.Engine().PromptContext(ctx, db, s, privacy.Filter(o.Text), app.Config().Settings.Inject.MaxChars)
	if err != nil {
		return err
	}
	if app.JSON {
		return PrintJSON(app.Out, map[string]any{"triggers": rep.Triggers, "registered": rep.Registered, "context": block})
	}
	if block != "" {
		fmt.Fprintln(app.Out, block)
	}
	return nil
}

type contextTouchOptions struct {
	Session string
	Edit    bool
	Deliver bool
}

func newContextTouchCmd(app *App) *cobra.Command {
	var o contextTouchOptions
	cmd := &cobra.Command{
		Use:   "touch --session S [--edit] [--deliver] PATH...",
		Short: "Register what touched files bring: memory about them, AGENTS.md/README.md, rules",
		Long: `Runs what a tool hook runs for files the agent read (or, with --edit, changed): what memory
knows about each file (high priority when edited), the AGENTS.md and README.md of its directories up
to the project root the first time the session touches them, and the rule files whose globs match
it, once per session. Only files whose real path is inside the project are read (a link out of it,
a FIFO or a device is skipped), and their text passes the privacy filter before it is registered.
With --deliver the session's pending context is consumed and printed at once.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runContextTouch(cmd.Context(), app, o, args)
		},
	}
	cmd.Flags().StringVar(&o.Session, "session", "", "session id (required)")
	cmd.Flags().BoolVar(&o.Edit, "edit", false, "the files were changed, not only read")
	cmd.Flags().BoolVar(&o.Deliver, "deliver", false, "consume and print the pending context at once")
	return cmd
}

func runContextTouch(ctx context.Context, app *App, o contextTouchOptions, paths []string) error {
	if err := SessionArg(&o.Session); err != nil {
		return err
	}
	s, err := contextSession(app, o.Session)
	if err != nil {
		return err
	}
	wd, _ := app.Getwd()
	for i, p := range paths {
		if !filepath.IsAbs(p) && wd != "" {
			paths[i] = filepath.Join(wd, p)
		}
	}
	db, err := app.WriteStore(ctx)
	if err != nil {
		return err
	}
	var read, edited []string
	if o.Edit {
		edited = paths
	} else {
		read = paths
	}
	block, rep, err := app.Engine().FileContext(ctx, db, s, read, edited, o.Deliver, app.Config().Settings.Inject.MaxChars)
	if err != nil {
		return err
	}
	if app.JSON {
		return PrintJSON(app.Out, map[string]any{"registered": rep.Registered, "context": block})
	}
	if o.Deliver {
		if block != "" {
			fmt.Fprintln(app.Out, block)
		}
		return nil
	}
	w := app.Text()
	for _, r := range rep.Registered {
		fmt.Fprintln(w, "registered "+r)
	}
	return nil
}

// contextSession is the session in the current project and its root.
func contextSession(app *App, id string) (triggers.Session, error) {
	p, err := app.Project()
	if err != nil {
		return triggers.Session{}, err
	}
	root := p.Root
	if root == "" {
		root, _ = app.Getwd()
	}
	return triggers.Session{ID: id, Project: p.Key, Root: root}, nil
}
