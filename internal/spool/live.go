package spool

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/memhq/mem/internal/fsafe"
)

// liveName is the subfolder of the records a running process holds: the
// events it is applying itself (README, "Durable at arrival").
const liveName = "live"

// Held is a record written at arrival and held by the process applying it:
// on disk before anything else is done with it, kept out of the queue while
// its process lives (a lock on the file), and queued for any other process
// to apply when that process ends without Done, however it ends.
type Held struct {
	d    Dir
	id   string
	mu   sync.Mutex
	f    *os.File // holds the lock; nil once done or queued
	path string   // where the record is now
}

// Hold writes data as the record id (from NewID) in one write, locked by
// this process, before the caller does anything else with the event. The
// caller ends it with Done (applied: the file goes) or Queue (not applied:
// it joins the queue). A process that ends before either leaves it for the
// next List or Len to queue, in its arrival order.
//
// Where a held record cannot work (canHold), Hold returns
// errors.ErrUnsupported and writes nothing.
func (d Dir) Hold(id string, data []byte) (*Held, error) {
	if !canHold {
		return nil, errors.ErrUnsupported
	}
	live := d.live()
	if err := d.ensure(); err != nil {
		return nil, err
	}
	if err := live.ensure(); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(live.path, "."+id+ext+".*")
	if err != nil {
		return nil, fmt.Errorf("spooling to %s: %w", live.path, err)
	}
	// Locked before it has its name, so no other process ever takes it for
	// the record of a process that ended.
	held, err := fsafe.TryLock(f)
	if err == nil && !held {
		err = errors.New("locked by another process")
	}
	if err == nil {
		_, err = f.Write(data)
	}
	final := filepath.Join(live.path, id+ext)
	if err == nil {
		err = os.Rename(f.Name(), final)
	}
	if err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("spooling to %s: %w", live.path, err)
	}
	return &Held{d: d, id: id, f: f, path: final}, nil
}

// ID returns the record's id.
func (h *Held) ID() string { return h.id }

// Done removes the record once its event is applied, and lets it go. When
// Queue came first, the record stays queued: the id the event's transaction
// recorded makes applying it again a no-op.
func (h *Held) Done() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.f == nil {
		return nil
	}
	err := fsafe.Remove(h.path)
	h.f.Close()
	h.f = nil
	return err
}

// Queue moves the record into the queue, synced, for the next process that
// applies the spool, and lets it go: its process gives up applying it.
func (h *Held) Queue() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.f == nil {
		return nil
	}
	// Synced now that it is the event's only copy for a while; a record
	// applied at once is removed without ever paying for it.
	_ = h.f.Sync()
	dst := filepath.Join(h.d.path, h.id+ext)
	err := os.Rename(h.path, dst)
	if err == nil {
		h.path = dst
	}
	h.f.Close()
	h.f = nil
	if err != nil {
		return fmt.Errorf("queueing spooled event %s: %w", h.id, err)
	}
	return nil
}

func (d Dir) live() Dir { return Dir{path: filepath.Join(d.path, liveName)} }

// adopt queues the held records of processes that ended without applying
// them (killed by the editor at its timeout, or past their deadline): each
// keeps its id, so it takes its place in arrival order. A record whose
// process still holds it is left alone.
func (d Dir) adopt() error {
	live := d.live()
	names, err := live.names()
	if err != nil {
		return err
	}
	var errs []error
	for _, n := range names {
		p := filepath.Join(live.path, n)
		id, temp := tempID(n)
		if !temp && (strings.HasPrefix(n, ".") || !strings.HasSuffix(n, ext)) {
			continue
		}
		if !temp {
			id = strings.TrimSuffix(n, ext)
		} else if fi, err := os.Lstat(p); err != nil || fi.Size() == 0 {
			// Empty: a Hold between creating and locking it (taking the
			// lock now would make it fail), or one killed then.
			removeStale(p)
			continue
		}
		f, err := fsafe.Open(p) // never created here: it may be gone
		if errors.Is(err, fs.ErrNotExist) {
			continue // done or queued meanwhile
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("spooled record %s: %w", n, err))
			continue
		}
		// Unlocked: its process has ended (or let it go meanwhile: then the
		// name is gone and the rename fails, which is fine). A temporary
		// file it left is queued too, since it holds something: written in
		// one write, it is most likely whole (a record cut short is set
		// aside, and said, by the process applying it).
		if ok, _ := fsafe.TryLock(f); ok {
			if err := os.Rename(p, filepath.Join(d.path, id+ext)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, fmt.Errorf("queueing spooled record %s: %w", n, err))
			}
		}
		f.Close()
	}
	return errors.Join(errs...)
}

// tempID returns the id of a temporary file of Put or Hold
// ("." + id + ".json." + random).
func tempID(name string) (string, bool) {
	if !isTemp(name) {
		return "", false
	}
	id, _, ok := strings.Cut(name[1:], ext+".")
	return id, ok && id != ""
}
