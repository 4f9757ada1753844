package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/memhq/mem/internal/cite"
	"github.com/memhq/mem/internal/collector"
	"github.com/memhq/mem/internal/config"
	"github.com/memhq/mem/internal/fsafe"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/privacy"
	"github.com/memhq/mem/internal/search"
	"github.com/memhq/mem/internal/store"
	"github.com/memhq/mem/internal/triggers"
)

// contextEngine builds the context sources from the configuration.
func contextEngine(cfg *config.Config, now func() time.Time, db *store.DB) (*triggers.Engine, error) {
	c := triggers.ConfigFrom(cfg.Settings.Context)
	if c.Keywords {
		pairs, err := keywordPairs(cfg.Settings.Context.Keywords, filepath.Dir(cfg.File))
		if err != nil {
			return nil, err
		}
		c.KeywordPairs = pairs
	}
	return &triggers.Engine{Pending: db, Files: db, Search: search.Over(db), Citations: &cite.Checker{Store: db, Keep: true},
		Config: c, Now: now}, nil
}

// maxKeywordFile bounds a keyword file.
const maxKeywordFile = 64 << 10

// keywordPairs reads context.keywords: keyword=file entries, the file's
// text being what a prompt with the keyword gets. Relative files are in the
// config folder. The files are the user's choice, so links are followed,
// but a FIFO or device is refused rather than waited on.
func keywordPairs(list []string, dir string) ([]triggers.Keyword, error) {
	var out []triggers.Keyword
	for _, item := range list {
		word, file, ok := strings.Cut(item, "=")
		word, file = strings.TrimSpace(word), strings.TrimSpace(file)
		if !ok || word == "" || file == "" {
			return nil, Invalid("context.keywords", "keyword=file entries", item)
		}
		if strings.HasPrefix(file, "~/") {
			if home, err := os.UserHomeDir(); err == nil {
				file = filepath.Join(home, file[2:])
			}
		}
		if !filepath.IsAbs(file) {
			file = filepath.Join(dir, file)
		}
		b, err := fsafe.ReadFile(file, maxKeywordFile)
		if err != nil {
			return nil, Invalid("context.keywords", "keyword=file entries naming readable regular files of at most 64 KiB", item)
		}
		out = append(out, triggers.Keyword{Word: word, Text: string(b)})
	}
	return out, nil
}

// promptContext runs a prompt's sources for a session and returns what the
// session gets at this turn (the consumed and persistent entries as one XML
// block, at most maxChars long; "" for nothing). The prompt must have passed
// the privacy filter.
func promptContext(ctx context.Context, cfg *config.Config, now func() time.Time, db *store.DB, s triggers.Session, prompt string, maxChars int) (string, triggers.Report, error) {
	eng, err := contextEngine(cfg, now, db)
	if err != nil {
		return "", triggers.Report{}, err
	}
	rep, err := eng.OnPrompt(ctx, s, prompt)
	if err != nil {
		return "", rep, err
	}
	es, err := newCollector(cfg, now, db).Consume(ctx, s.ID, maxChars)
	if err != nil {
		return "", rep, err
	}
	return collector.Render(es), rep, nil
}

// fileContext registers what touched files bring; with deliver it also
// consumes the session's pending context at once (for agents that take
// context after a tool call), persistent entries excepted: those come with
// each turn, not with each tool call.
func fileContext(ctx context.Context, cfg *config.Config, now func() time.Time, db *store.DB, s triggers.Session, read, edited []string, deliver bool, maxChars int) (string, triggers.Report, error) {
	eng, err := contextEngine(cfg, now, db)
	if err != nil {
		return "", triggers.Report{}, err
	}
	var rep triggers.Report
	for _, f := range []struct {
		paths []string
		edit  bool
	}{{edited, true}, {read, false}} {
		for _, p := range f.paths {
			r, err := eng.OnFile(ctx, s, p, f.edit)
			rep.Registered = append(rep.Registered, r.Registered...)
			if err != nil {
				return "", rep, err
			}
		}
	}
	if !deliver {
		return "", rep, nil
	}
	es, err := newCollector(cfg, now, db).ConsumeNew(ctx, s.ID, maxChars)
	if err != nil {
		return "", rep, err
	}
	return collector.Render(es), rep, nil
}

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
	block, rep, err := promptContext(ctx, app.Config(), app.Now, db, s, privacy.Filter(o.Text), app.Config().Settings.Inject.MaxChars)
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
	block, rep, err := fileContext(ctx, app.Config(), app.Now, db, s, read, edited, o.Deliver, app.Config().Settings.Inject.MaxChars)
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
