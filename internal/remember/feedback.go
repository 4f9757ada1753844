package remember

import (
	"context"
	"time"

	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/recall"
	"github.com/memhq/mem/internal/store"
	"github.com/memhq/mem/internal/tokens"
	"github.com/memhq/mem/internal/triggers"
)

// What mem gave and whether it was of use (memory.Feedback): a reply built
// in the write transaction of a hook's event records the entries it
// injected there, so recording costs no transaction of its own; a block
// read in a read transaction (a bare `mem inject`, the MCP server's context,
// the viewer) records nothing, since nobody's model was given it. A fetch
// is recorded where mem may write: the hook that sees the agent run `mem
// get`, `mem search` or `mem timeline` (capture.Result.Fetched), and the MCP
// server's get, search and timeline; a bare `mem get` in a terminal is a
// read command and records nothing.

// recordBlock records the entries of a recall block given to session s,
// when db is a write transaction.
func recordBlock(ctx context.Context, db *store.DB, s memory.Session, res recall.Result, compact bool, at time.Time) error {
	if !db.Writable() || res.Text == "" {
		return nil
	}
	channel := memory.ChannelStart
	if compact {
		channel = memory.ChannelCompact
	}
	list := make([]memory.Injection, 0, len(res.Entries))
	for _, e := range res.Entries {
		ref := memory.ObservationRef(e.ID)
		if e.Kind == memory.KindSummary {
			ref = memory.SummaryRef(e.ID)
		}
		list = append(list, memory.Injection{Project: s.Project, SessionID: s.ID, Channel: channel, Ref: ref,
			Tokens: e.Tokens, At: at})
	}
	return db.AddInjections(ctx, list)
}

// recordConsumed records the memory entries among the pending entries a
// turn delivered to a session: memory triggers' are prompt-time context,
// file activity's (an observation, or a session's summary) file-touch
// context; the other sources bring files, not memory.
func recordConsumed(ctx context.Context, db *store.DB, s triggers.Session, es []memory.PendingEntry, at time.Time) error {
	var list []memory.Injection
	for _, e := range es {
		channel := ""
		switch e.Source {
		case triggers.SourceMemory:
			channel = memory.ChannelPrompt
		case triggers.SourceFiles:
			channel = memory.ChannelFile
		}
		ref, ok := memory.ParseEntryRef(e.EntryID)
		if channel == "" || !ok {
			continue
		}
		list = append(list, memory.Injection{Project: s.Project, SessionID: s.ID, Channel: channel, Ref: ref,
			Tokens: tokens.Estimate(e.Content), At: at})
	}
	return db.AddInjections(ctx, list)
}

// Feedback counts what became of a project's injections since since, from
// one snapshot.
func Feedback(ctx context.Context, db *store.DB, project string, since time.Time) (fb memory.Feedback, err error) {
	err = db.Read(ctx, func(rx *store.DB) error {
		fb, err = rx.Feedback(ctx, project, since)
		return err
	})
	return fb, err
}
