package remember

import (
	"context"

	"github.com/memhq/mem/internal/memory"
	"github.com/memhq/mem/internal/store"
)

// SessionDetail is everything recorded in one session.
type SessionDetail struct {
	Session      memory.Session       `json:"session"`
	Summary      *memory.Summary      `json:"summary"`
	Prompts      []memory.Prompt      `json:"prompts"`
	Observations []memory.Observation `json:"observations"`
}

// maxSessionObservations bounds the observations a session's detail lists.
const maxSessionObservations = 10000

// Session reads everything recorded in session id (as stored) from one
// snapshot of the database.
func Session(ctx context.Context, db *store.DB, id string) (d SessionDetail, err error) {
	err = db.Read(ctx, func(rx *store.DB) error {
		if d.Session, err = rx.Session(ctx, id); err != nil {
			return err
		}
		if sum, err := rx.SessionSummary(ctx, id); err == nil {
			d.Summary = &sum
		}
		if d.Prompts, err = rx.Prompts(ctx, id); err != nil {
			return err
		}
		d.Observations, err = rx.ListObservations(ctx, store.ObservationFilter{SessionID: id, Ascending: true,
			Limit: maxSessionObservations})
		return err
	})
	return d, err
}

// InSession runs fn in one write transaction in which session s exists:
// it is created (in s's project, with s's working folder) when it does
// not, so what fn records and the session come together or not at all.
func InSession(ctx context.Context, db *store.DB, s memory.Session, fn func(tx *store.DB) error) error {
	return db.Write(ctx, func(tx *store.DB) error {
		if _, err := tx.EnsureSession(ctx, s); err != nil {
			return err
		}
		return fn(tx)
	})
}
