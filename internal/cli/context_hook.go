package cli

import (
	"context"
	"time"

	"github.com/memhq/mem/internal/config"
	"github.com/memhq/mem/internal/hook"
	"github.com/memhq/mem/internal/store"
	"github.com/memhq/mem/internal/triggers"
)

// HookContext answers prompts and tool calls with prompt-time context: a
// prompt runs the keyword and memory-trigger sources, a tool call the file
// sources for the files it read or changed; then the session's pending
// context is consumed as one block. After a tool call the block is given
// only to agents that take context there (Claude Code's PostToolUse,
// Gemini's AfterTool, Copilot's PostToolUse); for the others it waits for
// the next prompt. scripts/eval measures prompt-time context through it.
func HookContext(cfg *config.Config, now func() time.Time) hook.ContextFunc {
	return func(ctx context.Context, db *store.DB, t hook.ContextTurn) (string, error) {
		ts := triggers.Session{ID: t.Session.ID, Project: t.Session.Project, Root: t.Root}
		// Leave room for the separator the hook puts between parts; a
		// negative room means no cap.
		limit := t.Room - 2
		if t.Room < 0 {
			limit = 0
		}
		switch t.Event.Kind {
		case hook.KindPrompt:
			block, _, err := promptContext(ctx, cfg, now, db, ts, t.Event.Prompt, limit)
			return block, err
		case hook.KindTool:
			block, _, err := fileContext(ctx, cfg, now, db, ts, t.Read, t.Edited, t.Event.ContextAfterTool, limit)
			return block, err
		}
		return "", nil
	}
}
