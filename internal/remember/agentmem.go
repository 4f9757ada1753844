package remember

import (
	"context"

	"slices"

	"github.com/memhq/mem/internal/agentmem"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/store"
)

// SetAgentFiles tells the engine where the agents keep their own memory
// files (their home folder and environment), for Refresh.
func (e *Engine) SetAgentFiles(env agentmem.Env) { e.agents = env }

// Refresh reads again the agents' memory files of a project that changed
// since last read, in db's transaction (agentmem.Refresh); nothing when
// the engine was not told where they are.
func (e *Engine) Refresh(ctx context.Context, db *store.DB, project, root string) error {
	if e.agents.Home == "" {
		return nil
	}
	kinds := append(slices.Clip(agentmem.Kinds), memory.SourceRepository)
	_, err := agentmem.Refresh(ctx, db, e.agents, kinds, project, root, false)
	return err
}
