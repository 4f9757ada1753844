package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/privacy"
	"github.com/memhq/mem/internal/store"
)

type promptOptions struct {
	Session string
	Text    string
}

func newPromptCmd(app *App) *cobra.Command {
	var o promptOptions
	cmd := &cobra.Command{
		Use:   "prompt --session ID [--text TEXT | TEXT... | < stdin]",
		Short: "Record a user prompt of a session (private parts removed)",
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.Text == "" && len(args) > 0 {
				o.Text = strings.Join(args, " ")
			}
			return runPrompt(cmd.Context(), app, o)
		},
	}
	cmd.Flags().StringVar(&o.Session, "session", "", "session id (required)")
	cmd.Flags().StringVar(&o.Text, "text", "", "the prompt (default: the arguments, else stdin)")
	return cmd
}

func runPrompt(ctx context.Context, app *App, o promptOptions) error {
	if err := SessionArg(&o.Session); err != nil {
		return err
	}
	if o.Text == "" {
		b, err := io.ReadAll(io.LimitReader(app.In, memory.MaxTextLen+1))
		if err != nil {
			return fmt.Errorf("reading the prompt from stdin: %w", err)
		}
		o.Text = string(b)
	}
	if strings.TrimSpace(o.Text) == "" {
		return Invalid("--text", "a non-empty prompt (flag, arguments or stdin)", "")
	}
	if len(o.Text) > memory.MaxTextLen {
		return Invalid("--text", "at most 64 KiB", "")
	}
	text := privacy.Filter(o.Text)
	if privacy.IsEmpty(text) {
		if app.JSON {
			return PrintJSON(app.Out, map[string]any{"recorded": false, "reason": "private"})
		}
		fmt.Fprintln(app.Out, "not recorded: the prompt is entirely private")
		return nil
	}
	var p memory.Prompt
	err := app.inSession(ctx, o.Session, func(tx *store.DB) (err error) {
		p, err = tx.AddPrompt(ctx, o.Session, text, app.Now())
		return err
	})
	if err != nil {
		return err
	}
	if app.JSON {
		return PrintJSON(app.Out, map[string]any{"recorded": true, "prompt": p})
	}
	fmt.Fprintf(app.Out, "prompt %d of session %s\n", p.PromptNumber, p.SessionID)
	return nil
}
