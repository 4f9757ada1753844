package spool

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/memhq/mem/internal/store"
)

// Applier is what applies the spool's records: it knows their content, the
// spool only their order, their ids and their files.
type Applier interface {
	// ApplySpooled does what the record id, read as data, records, in tx.
	// An error wrapping ErrUnreadable, or any error but a NotNow one, sets
	// the record aside.
	ApplySpooled(ctx context.Context, tx *store.DB, id string, data []byte) error
	// LogSpooled logs a problem of the spool (a record set aside, a file
	// that would not go): it concerns the hooks, not the caller.
	LogSpooled(format string, args ...any)
}

// ErrUnreadable says a record cannot be read as one (another version,
// cut short): it is set aside rather than guessed at.
var ErrUnreadable = errors.New("unreadable record")

// KeepApplied is how long the ids of applied events are kept. An id is only
// needed while a file of the event may still be in the spool (README).
const KeepApplied = 24 * time.Hour

// NotNow reports whether err says the database cannot take a write at the
// moment (locked, read-only, full, or its file refused a write) rather than
// that the event is wrong: such an event is spooled, to be applied once the
// database can take it, not dropped.
func NotNow(err error) bool {
	return errors.Is(err, store.ErrBusy) || errors.Is(err, store.ErrFull) ||
		errors.Is(err, store.ErrReadOnly) || errors.Is(err, store.ErrWrite)
}

// Apply runs work in one write transaction keyed by the event's id (from
// NewID; at is its arrival): when the id was applied already, work is not
// run, so an event that is both applied by its own process and spooled
// (its deadline came first) is applied once. About one event in sixteen
// (by the last digit of its id) also prunes the ids older than
// KeepApplied, in the same transaction, when the spool holds no record:
// then every file that existed was applied and removed, and any file that
// appears later arrived within a hook's deadline, so those ids cannot be
// met again.
func (d Dir) Apply(ctx context.Context, db *store.DB, id string, at time.Time, work func(tx *store.DB) error) error {
	_, err := db.Apply(ctx, id, func(tx *store.DB) error {
		if err := work(tx); err != nil {
			return err
		}
		if !strings.HasSuffix(id, "0") {
			return nil
		}
		if n, _, err := d.Len(); err != nil || n > 0 {
			return nil
		}
		return tx.PruneApplied(ctx, IDBefore(at.Add(-KeepApplied)))
	})
	return err
}

// Drain applies the waiting records, oldest first, until the spool is
// empty or until passes; it returns how many are left. The records are
// applied in one transaction (one write lock, one commit), each in a
// savepoint of its own that also records its id (store.DB.Apply), and
// their files are removed after the commit: a record is applied once
// however many processes drain at the same time and wherever one is
// killed. Draining stops at the first record the database cannot take now
// (NotNow), keeping what was applied before it; a record that cannot be
// applied for another reason is set aside, logged. The caller holds the
// drain lock.
func (d Dir) Drain(ctx context.Context, db *store.DB, until time.Time, a Applier) (int, error) {
	entries, err := d.List()
	if err != nil {
		return 0, err
	}
	if len(entries) == 0 {
		return 0, nil
	}
	type refused struct {
		e   Entry
		why error
	}
	var (
		applied []Entry
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
			data, err := d.Read(e)
			if errors.Is(err, fs.ErrNotExist) {
				continue // another process applied it meanwhile
			}
			if err != nil {
				// Too large, not readable or not a file: it must not hold up
				// every record behind it.
				bad = append(bad, refused{e, fmt.Errorf("%w: %w", ErrUnreadable, err)})
				continue
			}
			_, err = tx.Apply(ctx, e.ID, func(tx *store.DB) error { return a.ApplySpooled(ctx, tx, e.ID, data) })
			switch {
			case NotNow(err), ctx.Err() != nil:
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
		if err := d.remove(e); err != nil {
			a.LogSpooled("removing applied spooled event %s: %v", e.ID, err)
		}
	}
	for _, b := range bad {
		if err := d.putAside(b.e); err != nil {
			a.LogSpooled("setting spooled event %s aside: %v", b.e.ID, err)
			continue
		}
		a.LogSpooled("spooled event %s cannot be applied (%v): set aside in %s", b.e.ID, b.why, d.path)
	}
	return left, stopped
}

// DrainHeld drains until until with the drain lock (release) held,
// releases it, and drains again while records spooled meanwhile are found
// and the lock is free: a process that spooled because this one held the
// lock may have looked for the lock just before it was let go.
func (d Dir) DrainHeld(ctx context.Context, db *store.DB, release func(), until time.Time, a Applier) (int, error) {
	for {
		left, err := d.Drain(ctx, db, until, a)
		release()
		if err != nil || left > 0 || time.Now().After(until) {
			return left, err
		}
		if n, _, _ := d.Len(); n == 0 {
			return 0, nil
		}
		var ok bool
		if release, ok = d.TryLock(); !ok {
			return 0, nil // another process drains what is left
		}
	}
}

// TakeOver applies the spool until until if its drain lock is free: what a
// process does after spooling its event because another one held the lock,
// which looks at the spool again before it lets go, so one of the two
// applies that event.
func (d Dir) TakeOver(ctx context.Context, db *store.DB, until time.Time, a Applier) {
	release, ok := d.TryLock()
	if !ok {
		return
	}
	if _, err := d.DrainHeld(ctx, db, release, until, a); err != nil && !errors.Is(err, store.ErrBusy) {
		a.LogSpooled("applying spooled events: %v", err)
	}
}

// ApplyWaiting applies what waits before a command's own writes, so they
// keep their order after the events hooks spooled: it waits for the drain
// lock and the database (as the command's writes do) until until.
// Problems are logged: they concern the hooks, not the command.
func (d Dir) ApplyWaiting(ctx context.Context, db *store.DB, until time.Time, a Applier) {
	if n, _, _ := d.Len(); n == 0 {
		return
	}
	release, ok := d.Lock(until)
	if !ok {
		return
	}
	defer release()
	if _, err := d.Drain(ctx, db, until, a); err != nil && !errors.Is(err, store.ErrBusy) {
		a.LogSpooled("applying spooled events: %v", err)
	}
}

// Lock takes the drain lock, trying until until.
func (d Dir) Lock(until time.Time) (release func(), ok bool) {
	release, ok = d.TryLock()
	for ; !ok && time.Now().Before(until); release, ok = d.TryLock() {
		time.Sleep(10 * time.Millisecond) // a hook is applying it: its turn is short
	}
	return release, ok
}

// Forget deletes what is forgotten from the database (deleteIt) and from
// the spool: every record match selects, waiting, set aside or being
// written, is overwritten and deleted (shred); it returns how many went.
// The drain lock is taken first (waiting until until) and held until the
// purge is done, so that no process applies a record of what is being
// forgotten between the delete and the purge, and a record spooled while
// the delete runs is purged too. Without the lock nothing is deleted. A
// spool path that is not a folder holds nothing and takes nothing: the
// delete goes ahead alone. A WAL other processes kept in use
// (store.ErrWALKept) is no reason to leave the records: it is passed on
// once they are gone.
func (d Dir) Forget(until time.Time, deleteIt func() error, match func(data []byte) bool) (int, error) {
	if fi, err := os.Lstat(d.path); err == nil && !fi.IsDir() {
		return 0, deleteIt()
	}
	release, ok := d.Lock(until)
	if !ok {
		return 0, fmt.Errorf("forgot nothing: another process kept applying the hook events spooled in %s; try again: %w",
			d.path, store.ErrBusy)
	}
	defer release()
	kept := deleteIt()
	if kept != nil && !errors.Is(kept, store.ErrWALKept) {
		return 0, kept
	}
	n, err := d.shred(match)
	if err != nil {
		return n, fmt.Errorf("forgot them in the database, but not every spooled hook event: %w", err)
	}
	return n, kept
}
