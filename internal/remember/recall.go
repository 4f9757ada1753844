package remember

import (
	"context"
	"fmt"
	"time"

	"github.com/memhq/mem/internal/cite"
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
// The files its observations cite are checked against the work tree
// (cite), in the same snapshot.
func Recall(ctx context.Context, db *store.DB, req recall.Request, set recall.Settings) (res recall.Result, err error) {
	res, _, err = recallChecked(ctx, db, req, set)
	return res, err
}

// recallChecked is Recall, returning as well the checker, which holds what
// the check learnt.
func recallChecked(ctx context.Context, db *store.DB, req recall.Request, set recall.Settings) (res recall.Result, ck *cite.Checker, err error) {
	ck = &cite.Checker{}
	err = db.Read(ctx, func(rx *store.DB) error {
		ck.Store = rx
		req.Citations = ck
		res, err = recall.Build(ctx, rx, req, set)
		return err
	})
	return res, ck, err
}

// Block renders a session's recall block as the hook gives it: the
// session-start block, or with compact the one given after compaction.
func (e *Engine) Block(ctx context.Context, db *store.DB, s memory.Session, compact bool) (string, error) {
	m := recall.ModeStart
	if compact {
		m = recall.ModeCompact
	}
	res, ck, err := recallChecked(ctx, db, recall.Request{Project: s.Project, SessionID: s.ID, Mode: m,
		Format: recall.FormatXML, AgentType: s.AgentType}, e.recall)
	if err != nil {
		return "", err
	}
	// In a hook's write transaction the block is recorded as given; a
	// failure to record it does not withhold it (it is logged).
	e.warn(recordBlock(ctx, db, s, res, compact, e.now()))
	// What the check learnt is kept, so that the next block only stats
	// the files: in the hook event's write transaction when db is in one
	// (no write of its own). In a read transaction it cannot be kept, and
	// a busy database only makes the next check hash again.
	if err := Keep(ctx, db, ck.Learnt()); err != nil && db.Writable() {
		e.warn(fmt.Errorf("keeping what the citation check learnt: %w", err))
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

// SummarizeSession writes the summary of a session now (`mem summarize
// --session`): what it recorded is read from one snapshot, the summarizer
// (which may run a model command for a while) works outside any
// transaction, and the summary is stored in one write transaction; with
// dryRun nothing is stored. A session that recorded nothing is left alone
// (Result.Skipped); an unknown one is an error wrapping memory.ErrNotFound.
func SummarizeSession(ctx context.Context, db *store.DB, id string, opts summarize.Options, dryRun bool) (summarize.Result, error) {
	var in summarize.Input
	err := db.Read(ctx, func(rx *store.DB) (err error) {
		in, err = summarize.Load(ctx, rx, id)
		return err
	})
	if err != nil {
		return summarize.Result{}, err
	}
	if in.Empty() {
		return summarize.Result{Skipped: summarize.NothingRecorded}, nil
	}
	res, err := summarize.Build(ctx, in, opts)
	if err != nil || dryRun {
		return res, err
	}
	err = db.Write(ctx, func(tx *store.DB) (err error) {
		res.Summary, err = tx.PutSummary(ctx, res.Summary)
		return err
	})
	return res, err
}
