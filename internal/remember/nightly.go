package remember

import (
	"context"
	"time"

	"github.com/memhq/mem/internal/retain"
	"github.com/memhq/mem/internal/store"
	"github.com/memhq/mem/internal/summarize"
)

// MaintainAfter: pending context of sessions ended longer ago is dropped by
// the nightly maintenance.
const MaintainAfter = 24 * time.Hour

// Nightly says what a nightly run does.
type Nightly struct {
	// Pending: summarize every pending session (summarize.Job), with Job's
	// options below.
	Pending   bool
	Summarize summarize.Options
	Idle      time.Duration
	Limit     int
	DryRun    bool
	Progress  func(summarize.Event) // may be nil
	// Retain: after the summaries, forget what retention lets go and fold
	// near-duplicates (retain.Run; a dry run only reports); nil: not run.
	Retain retain.Policy
	// Maintain: then drop stale pending context, merge the full-text
	// indexes and truncate the WAL (not in a dry run).
	Maintain bool
}

// NightlyReport is what a nightly run did.
type NightlyReport struct {
	Summaries   *summarize.Report     // nil without Pending
	Retention   *retain.Report        // nil without Retain
	Maintenance *store.MaintainReport // nil without maintenance
}

// Nightly runs the nightly job over db: the pending sessions' summaries,
// each in a transaction of its own (a run stopped half way keeps the ones
// done), then the maintenance. When another run holds the summarize lease,
// nothing is done: Summaries says who holds it. On an error, Summaries says
// how far the run got.
func (e *Engine) Nightly(ctx context.Context, db *store.DB, n Nightly) (NightlyReport, error) {
	var out NightlyReport
	if n.Pending {
		job := summarize.Job{Queue: summarizeQueue{db}, Options: n.Summarize, Idle: n.Idle, Limit: n.Limit,
			DryRun: n.DryRun, Progress: n.Progress}
		rep, err := job.Run(ctx)
		out.Summaries = &rep
		if err != nil || rep.LeaseHolder != "" {
			return out, err
		}
	}
	if n.Retain != nil {
		ret, err := retain.Run(ctx, db, n.Retain, e.now(), n.DryRun)
		out.Retention = &ret
		if err != nil {
			return out, err
		}
	}
	if n.Maintain && !n.DryRun {
		m, err := db.Maintain(ctx, e.now().Add(-MaintainAfter))
		if err != nil {
			return out, err
		}
		out.Maintenance = &m
	}
	return out, nil
}

// summarizeQueue adapts the store to the job's Queue: each session's
// summary is read from one snapshot and stored in one write
// (SummarizeSession).
type summarizeQueue struct{ *store.DB }

func (q summarizeQueue) Summarize(ctx context.Context, id string, opts summarize.Options) (summarize.Result, error) {
	return SummarizeSession(ctx, q.DB, id, opts, false)
}

func (q summarizeQueue) Pending(ctx context.Context, idleBefore time.Time, upgrade bool, limit int) ([]summarize.Pending, error) {
	ps, err := q.PendingSessions(ctx, store.PendingQuery{IdleBefore: idleBefore, Upgrade: upgrade, Limit: limit})
	if err != nil {
		return nil, err
	}
	out := make([]summarize.Pending, len(ps))
	for i, p := range ps {
		out[i] = summarize.Pending{ID: p.ID, Reason: p.Reason}
	}
	return out, nil
}
