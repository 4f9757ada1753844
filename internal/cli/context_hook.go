package cli

import (
	"context"

	"github.com/memhq/mem/internal/hook"
	"github.com/memhq/mem/internal/remember"
	"github.com/memhq/mem/internal/store"
)

// HookContext answers a hook's prompts and tool calls with the engine's
// prompt-time context (remember.Engine.TurnContext).
func HookContext(e *remember.Engine) hook.ContextFunc {
	return func(ctx context.Context, db *store.DB, t hook.ContextTurn) (string, error) {
		if t.Event.Kind != hook.KindPrompt && t.Event.Kind != hook.KindTool {
			return "", nil
		}
		return e.TurnContext(ctx, db, remember.Turn{Session: t.Session, Prompt: t.Event.Prompt,
			Tool: t.Event.Kind == hook.KindTool, Read: t.Read, Edited: t.Edited, Deliver: t.Event.ContextAfterTool,
			Root: t.Root, Room: t.Room})
	}
}
