package hook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/memhq/mem/internal/spool"
	"github.com/memhq/mem/internal/store"
)

// jobVersion is the version of the spooled record; a record of another
// version is set aside, not guessed at.
const jobVersion = 1

// job is an event as it is spooled: everything applying it needs, resolved
// when it arrived, so that it is applied as it would have been then.
type job struct {
	ID      string    `json:"-"` // the file name in the spool
	V       int       `json:"v"`
	At      time.Time `json:"at"`      // arrival: the time of everything the event records
	Dir     string    `json:"dir"`     // the folder the project was resolved from
	Project string    `json:"project"` // the project key
	Root    string    `json:"root"`    // the project's work tree root
	Event   Event     `json:"event"`
	// held is the record written at arrival (nil when there is none):
	// spooling the event queues it.
	held *spool.Held
}

// KeepApplied is how long the ids of applied events are kept. An id is only
// needed while a file of the event may still be in the spool (internal/spool/README.md).
const KeepApplied = 24 * time.Hour

// notNow reports whether err says the database cannot take a write at the
// moment (locked, read-only, full, or its file refused a write) rather than
// that the event is wrong: such an event is spooled, to be applied once the
// database can take it, not dropped.
func notNow(err error) bool {
	return errors.Is(err, store.ErrBusy) || errors.Is(err, store.ErrFull) ||
		errors.Is(err, store.ErrReadOnly) || errors.Is(err, store.ErrWrite)
}

// spoolFor spools j, which the database could not take because of err (a
// notNow error). A busy database is routine and not reported; one that is
// read-only, full or failing writes is a problem the user must hear of, so
// it comes back as the error, with where the event went.
func (h *Handler) spoolFor(j job, err error) error {
	if errors.Is(err, store.ErrBusy) {
		return h.spool(j, "database busy")
	}
	if serr := h.spool(j, err.Error()); serr != nil {
		return serr
	}
	return fmt.Errorf("event spooled as %s, to be applied once the database takes writes again: %w", j.ID, err)
}

// spool writes j to the spool, or queues the record written at its
// arrival. Spooling is how a busy database is met, not a problem: it is not
// logged. A failed write loses the event, and says so.
func (h *Handler) spool(j job, why string) error {
	if j.held != nil {
		if err := j.held.Queue(); err != nil {
			return fmt.Errorf("event lost: %s, and spooling it failed: %w", why, err)
		}
		return nil
	}
	data, err := json.Marshal(j)
	if err == nil {
		err = h.Spool.Put(j.ID, data)
	}
	if err != nil {
		return fmt.Errorf("event lost: %s, and spooling it failed: %w", why, err)
	}
	return nil
}

// hold writes j to the spool as it arrives, held by this process
// (spool.Held): it stays out of the queue while the process applies it, and
// joins it if the process ends first. A failed write is logged, and the
// event handled as before: spooled only if the database cannot take it.
func (h *Handler) hold(j job) *spool.Held {
	data, err := json.Marshal(j)
	if err != nil {
		h.logf("event %s not written at arrival: %v", j.ID, err)
		return nil
	}
	held, err := h.Spool.Hold(j.ID, data)
	if errors.Is(err, errors.ErrUnsupported) {
		return nil
	}
	if err != nil {
		h.logf("event %s not written at arrival: %v", j.ID, err)
		return nil
	}
	return held
}

// Drain applies the spooled events, oldest first, until the spool is empty
// or until passes; it returns how many are left. The events are applied in
// one transaction (one write lock, one commit), each in a savepoint of its
// own that also records its id (store.DB.Apply), and their files are removed after the commit: an event is
// applied once however many processes drain at the same time and wherever
// one is killed. Draining stops at the first event the database is too
// full (or read-only) for, keeping what was applied before it; an event
// that cannot be applied for another reason is set aside, logged.
func (h *Handler) Drain(ctx context.Context, db *store.DB, until time.Time) (int, error) {
	entries, err := h.Spool.List()
	if err != nil {
		return 0, err
	}
	if len(entries) == 0 {
		return 0, nil
	}
	type refused struct {
		e   spool.Entry
		why error
	}
	var (
		applied []spool.Entry
		bad     []refused
		left    int
		stopped error
	)
	_, err = db.Apply(ctx, "", func(tx *store.DB) error {
		applied, bad, left, stopped = applied[:0], bad[:0], 0, nil
		for i, e := range entries {
			if time.Now().After(until) {
				left = len(entries) - i
				return nil
			}
			data, err := h.Spool.Read(e)
			if errors.Is(err, fs.ErrNotExist) {
				continue // another process applied it meanwhile
			}
			if err != nil {
				// Too large, not readable or not a file: it must not hold up
				// every event behind it.
				bad = append(bad, refused{e, fmt.Errorf("unreadable record: %w", err)})
				continue
			}
			var j job
			if err := json.Unmarshal(data, &j); err != nil || j.V != jobVersion {
				bad = append(bad, refused{e, fmt.Errorf("unreadable record (version %d): %v", j.V, err)})
				continue
			}
			j.ID = e.ID
			_, err = tx.Apply(ctx, e.ID, func(tx *store.DB) error {
				return h.turn(tx, j, true, false).record(ctx)
			})
			switch {
			case notNow(err), ctx.Err() != nil:
				// What was applied before it is kept; it and the rest wait.
				left, stopped = len(entries)-i, err
				return nil
			case err != nil:
				bad = append(bad, refused{e, err})
				continue
			}
			applied = append(applied, e)
		}
		return nil
	})
	if err != nil {
		return len(entries), err
	}
	for _, e := range applied {
		if err := h.Spool.Remove(e); err != nil {
			h.logf("removing applied spooled event %s: %v", e.ID, err)
		}
	}
	for _, b := range bad {
		h.setAside(b.e, b.why)
	}
	return left, stopped
}

// drainHeld drains for h.DrainFor with the drain lock held, releases it,
// and drains again while events spooled meanwhile are found and the lock is
// free: a hook that spooled because this one held the lock may have looked
// for the lock just before it was let go.
func (h *Handler) drainHeld(ctx context.Context, db *store.DB, release func()) (int, error) {
	until := time.Now().Add(h.DrainFor)
	for {
		left, err := h.Drain(ctx, db, until)
		release()
		if err != nil || left > 0 || time.Now().After(until) {
			return left, err
		}
		if n, _, _ := h.Spool.Len(); n == 0 {
			return 0, nil
		}
		var ok bool
		if release, ok = h.Spool.TryLock(); !ok {
			return 0, nil // another process drains what is left
		}
	}
}

// takeOver applies the spool when its drain lock is free, after this hook
// spooled its event because another process held it.
func (h *Handler) takeOver(ctx context.Context, db *store.DB) {
	release, ok := h.Spool.TryLock()
	if !ok {
		return
	}
	if _, err := h.drainHeld(ctx, db, release); err != nil && !errors.Is(err, store.ErrBusy) {
		h.logf("applying spooled events: %v", err)
	}
}

func (h *Handler) setAside(e spool.Entry, why error) {
	if err := h.Spool.SetAside(e); err != nil {
		h.logf("setting spooled event %s aside: %v", e.ID, err)
		return
	}
	h.logf("spooled event %s cannot be applied (%v): set aside in %s", e.ID, why, h.Spool.Path())
}

// ForgetSpooled overwrites and deletes the spooled events, waiting or set
// aside, of a session (its id as stored) or, when session is empty, of a
// project: what is forgotten must not stay on disk in the spool, nor come
// back when the spool is applied. The caller holds the spool's drain lock.
func ForgetSpooled(sp spool.Dir, session, project string) (int, error) {
	return sp.Purge(func(data []byte) bool {
		var j job
		if json.Unmarshal(data, &j) != nil {
			return false
		}
		if session != "" {
			return j.Event.SessionID == session
		}
		return j.Project == project
	})
}
