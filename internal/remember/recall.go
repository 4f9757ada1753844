package remember

import (
	"context"
	"time"

	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/recall"
	"github.com/memhq/mem/internal/store"
	"github.com/memhq/mem/internal/summarize"
)

// Inject builds the recall block req asks for (what `mem inject` prints)
// from one snapshot of the database.
func (e *Engine) Inject(ctx context.Context, db *store.DB, req recall.Request) (recall.Result, error) {
	return Recall(ctx, db, req, e.recall)
}

// Recall builds the recall block req asks for with set from one snapshot
// of the database: what the MCP server and the viewer show, for callers
// that hold recall settings rather than the whole configuration.
func Recall(ctx context.Context, db *store.DB, req recall.Request, set recall.Settings) (res recall.Result, err error) {
	err = db.Read(ctx, func(rx *store.DB) error {
		res, err = recall.Build(ctx, rx, req, set)
		return err
	})
	return res, err
}

// Block renders a session's recall block as the hook gives it: the
// session-start block, or with compact the one given after compaction.
func (e *Engine) Block(ctx context.Context, db *store.DB, s memory.Session, compact bool) (string, error) {
	m := recall.ModeStart
	if compact {
		m = recall.ModeCompact
	}
	res, err := e.Inject(ctx, db, recall.Request{Project: s.Project, SessionID: s.ID, Mode: m,
		Format: recall.FormatXML, AgentType: s.AgentType})
	if err != nil {
		return "", err
	}
	return res.Text, nil
}

// Summarize writes the extractive summary of a session as it stands at at
// (at SessionEnd, and as the checkpoint before compaction), in one write
// transaction.
func (e *Engine) Summarize(ctx context.Context, db *store.DB, sessionID string, at time.Time) error {
	return db.Write(ctx, func(tx *store.DB) error {
		_, err := summarize.Session(ctx, tx, sessionID, summarize.Options{Now: func() time.Time { return at }})
		return err
	})
}
