package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/memhq/mem/internal/progress"
	"github.com/memhq/mem/internal/recall"
	"github.com/memhq/mem/internal/store"
)

type injectOptions struct {
	Session   string
	Mode      string
	Format    string
	Compress  string
	Prompt    string
	AgentType string
	Budget    int
	MaxChars  int
	// MaxCharsSet: --max-chars was given (else inject.max_chars applies).
	MaxCharsSet bool
}

func newInjectCmd(app *App) *cobra.Command {
	var o injectOptions
	cmd := &cobra.Command{
		Use:   "inject",
		Short: "Print the memory block for an agent: recent session summaries and a ranked index",
		Long: `Print what an agent should know of its project's past, under a token budget: the recent
session summaries (newest first, the current session left out), then an index of observations
(id, type, date, title) ranked by relevance, then a note of what was left out and how to fetch it
(mem get ID, mem search, the MCP tools).

Mode start (default) is for the system prompt at session start. Mode compact is for the compaction
prompt: half the budget, and the current session's own observations first.

Relevance = recency (halving every recall.half_life) x recall.weight.recency + type importance x
recall.weight.importance + same agent type x recall.weight.agent_type + keyword match (words of
--prompt, or of the session's prompts and files) x recall.weight.keyword. --json shows each
entry's factors. The budget holds for the whole printed text, markup included, with a conservative
token estimate; an item that does not fit is shortened at a sentence or clause boundary or left out.

The same memory gives the same bytes. A project or session with no memory gives an empty block
(in pretty format, a one-line welcome). Stored text comes from tools and files: the xml block
drops C0 and C1 control characters; text and pretty show every control character
(escape sequences, U+2028, bidirectional overrides) as a visible escape such as \x1b.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.MaxCharsSet = cmd.Flags().Changed("max-chars")
			return runInject(cmd.Context(), app, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Session, "session", "", "the current session id (its summary is left out; compact mode shows its observations first)")
	f.StringVar(&o.Mode, "mode", "start", "start (session start) or compact (after compaction)")
	f.StringVar(&o.Format, "format", "xml", "xml, text or pretty (for a terminal)")
	f.StringVar(&o.Compress, "compress", "conservative", "conservative (stop at the first item that does not fit) or aggressive (skip it, try smaller ones)")
	f.StringVar(&o.Prompt, "prompt", "", "text whose words make observations relevant (default: the session's prompts and files)")
	f.StringVar(&o.AgentType, "agent-type", "", "build, plan, ...: favours observations of the same agent type (default: the session's)")
	f.IntVar(&o.Budget, "budget", 0, "token budget of the whole block (default inject.budget, or inject.compact_budget in compact mode)")
	f.IntVar(&o.MaxChars, "max-chars", 0, "cap on the block's length in bytes, 0 for none (default inject.max_chars)")
	return cmd
}

func runInject(ctx context.Context, app *App, o injectOptions) error {
	mode, err := recall.ParseMode(o.Mode)
	if err != nil {
		return UsageErr(err)
	}
	format, err := recall.ParseFormat(o.Format)
	if err != nil {
		return UsageErr(err)
	}
	compress, err := recall.ParseCompress(o.Compress)
	if err != nil {
		return UsageErr(err)
	}
	if o.Budget < 0 || o.Budget > 1_000_000 {
		return Invalid("--budget", "a number of tokens from 1 to 1000000", fmt.Sprint(o.Budget))
	}
	maxChars := 0 // recall takes inject.max_chars
	if o.MaxCharsSet {
		switch {
		case o.MaxChars < 0:
			return Invalid("--max-chars", "a number of bytes >= 0 (0 for no cap)", fmt.Sprint(o.MaxChars))
		case o.MaxChars == 0:
			maxChars = -1 // no cap
		default:
			maxChars = o.MaxChars
		}
	}
	if o.Session != "" {
		if err := SessionArg(&o.Session); err != nil {
			return err
		}
	}
	id, err := app.Project()
	if err != nil {
		return err
	}
	db, err := app.ReadStore(ctx)
	if err != nil {
		return err
	}
	color, boxes := false, false
	if format == recall.FormatPretty && progress.IsTerminal(app.Out) {
		boxes = true
		color = app.Getenv("NO_COLOR") == ""
	}
	res, err := app.Engine().Inject(ctx, db, recall.Request{
		Project: id.Key, SessionID: o.Session, Mode: mode, Format: format, Compress: compress,
		Prompt: o.Prompt, Budget: o.Budget, MaxChars: maxChars, AgentType: o.AgentType,
		Color: color, Boxes: boxes,
	})
	if err != nil {
		return err
	}
	if app.JSON {
		return PrintJSON(app.Out, res)
	}
	_, err = io.WriteString(app.Out, res.Text)
	return err
}

// The store gives recall what it reads.
var _ recall.Source = (*store.DB)(nil)
