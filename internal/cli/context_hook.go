package cli

import (
	"context"
	"time"

	"github.com/memhq/mem/internal/capture"
	"github.com/memhq/mem/internal/config"
	"github.com/memhq/mem/internal/hook"
	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/project"
	"github.com/memhq/mem/internal/store"
	"github.com/memhq/mem/internal/triggers"
)

// hookContext answers prompts and tool calls with prompt-time context: a
// prompt runs the keyword and memory-trigger sources, a tool call the file
// sources for the files it read or changed; then the session's pending
// context is consumed as one block. After a tool call the block is given
// only to agents that take context there (Claude Code's PostToolUse,
// Gemini's AfterTool); for the others it waits for the next prompt.
func hookContext(cfg *config.Config, now func() time.Time) hook.ContextFunc {
	return func(ctx context.Context, db *store.DB, s memory.Session, ev hook.Event, room int) (string, error) {
		dir := ev.ProjectDir
		if dir == "" {
			dir = ev.Cwd
		}
		if dir == "" {
			dir = s.Cwd
		}
		root := dir
		if id, err := project.Resolve(dir, cfg.String("project")); err == nil {
			root = id.Root
		}
		ts := triggers.Session{ID: s.ID, Project: s.Project, Root: root}
		// Leave room for the separator the hook puts between parts; a
		// negative room means no cap.
		limit := room - 2
		if room < 0 {
			limit = 0
		}
		switch ev.Kind {
		case hook.KindPrompt:
			block, _, err := promptContext(ctx, cfg, now, db, ts, ev.Prompt, limit)
			return block, err
		case hook.KindTool:
			cwd := ev.Cwd
			if cwd == "" {
				cwd = s.Cwd
			}
			r := capture.Analyze(ev.Call, capture.Where{SessionID: s.ID, Root: root, Cwd: cwd})
			var edited []string
			if r.Observation != nil {
				edited = r.Observation.FilesModified
			}
			deliver := ev.Agent == hook.AgentClaude || ev.Agent == hook.AgentGemini
			block, _, err := fileContext(ctx, cfg, now, db, ts, r.FilesRead, edited, deliver, limit)
			return block, err
		}
		return "", nil
	}
}
