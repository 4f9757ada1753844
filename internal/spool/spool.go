// Package spool keeps records that could not be written to the database yet,
// durably and without any SQLite lock: one file per record in a folder
// beside the database, applied later in the order they arrived (README).
package spool

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/memhq/mem/internal/fsafe"
)

// MaxRecord bounds a record read back from the spool.
const MaxRecord = 128 << 20

const (
	ext       = ".json"
	setAside  = ".failed" // a record that cannot be applied, kept for a person to look at
	staleTemp = time.Hour // a temporary file this old was left by a killed write
	lockName  = ".lock"   // held by the process applying the spool
)

// Dir is a spool folder.
type Dir struct{ path string }

// Beside returns the spool of the database at dbPath: dbPath + ".spool".
func Beside(dbPath string) Dir { return Dir{path: dbPath + ".spool"} }

// Path returns the folder.
func (d Dir) Path() string { return d.path }

// Entry is one spooled record: ID is its unique name without extension,
// which sorts in arrival order.
type Entry struct {
	ID   string
	path string
}

// NewID returns a unique id for a record that arrived at at. Ids sort in
// arrival order; IDBefore(t) sorts before the ids of records that arrived
// at t or later.
func NewID(at time.Time) string {
	var r [8]byte
	_, _ = rand.Read(r[:]) // never fails (crypto/rand)
	return fmt.Sprintf("%s-%07d-%s", IDBefore(at), os.Getpid(), hex.EncodeToString(r[:]))
}

// IDBefore returns the prefix of the ids of records that arrived at at.
func IDBefore(at time.Time) string {
	return fmt.Sprintf("%020d", at.UnixNano())
}

// Put writes data as the record id (from NewID), in one write to a
// temporary file created exclusively in the spool, renamed into place: a
// killed Put leaves no record, only a temporary file List skips and later
// removes. Putting the same id again replaces the record. The file is not
// synced, as the database's own commits are not (synchronous=NORMAL): a
// record survives any crash of mem, not a power cut (README).
func (d Dir) Put(id string, data []byte) error {
	if err := d.ensure(); err != nil {
		return err
	}
	f, err := os.CreateTemp(d.path, "."+id+ext+".*")
	if err != nil {
		return fmt.Errorf("spooling to %s: %w", d.path, err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(d.path, id+ext))
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("spooling to %s: %w", d.path, err)
	}
	return nil
}

// ensure creates the folder, private to the user, and refuses a spool path
// that is a link or not a folder.
func (d Dir) ensure() error {
	fi, err := os.Lstat(d.path)
	if errors.Is(err, fs.ErrNotExist) {
		// The database's folder too: a hook's first event on a new machine
		// comes before the database.
		if err := os.MkdirAll(filepath.Dir(d.path), 0o700); err != nil {
			return fmt.Errorf("creating spool %s: %w", d.path, err)
		}
		if err := os.Mkdir(d.path, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("creating spool %s: %w", d.path, err)
		}
		fi, err = os.Lstat(d.path)
	}
	if err != nil {
		return fmt.Errorf("spool %s: %w", d.path, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("spool %s: %w", d.path, &fs.PathError{Op: "refusing", Path: d.path, Err: errors.New("not a folder")})
	}
	return nil
}

// List returns the records in arrival order. A missing folder holds none.
// Records held by processes that ended join the queue first (Hold), and
// temporary files of writes killed long ago are removed on the way.
func (d Dir) List() ([]Entry, error) {
	_ = d.adopt() // one that cannot be queued now is tried again next time
	names, err := d.names()
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, n := range names {
		switch {
		case n == lockName:
		case strings.HasPrefix(n, "."):
			removeStale(filepath.Join(d.path, n))
		case strings.HasSuffix(n, ext):
			out = append(out, Entry{ID: strings.TrimSuffix(n, ext), path: filepath.Join(d.path, n)})
		}
	}
	return out, nil
}

// removeStale removes a temporary file left by a write killed long ago.
func removeStale(p string) {
	if fi, err := os.Lstat(p); err == nil && time.Since(fi.ModTime()) > staleTemp {
		_ = fsafe.Remove(p)
	}
}

// Len returns how many records wait, and how many were set aside. Records
// held by processes that ended join the queue first, and count.
func (d Dir) Len() (waiting, failed int, err error) {
	_ = d.adopt()
	names, err := d.names()
	for _, n := range names {
		switch {
		case strings.HasPrefix(n, "."):
		case strings.HasSuffix(n, ext):
			waiting++
		case strings.HasSuffix(n, setAside):
			failed++
		}
	}
	return waiting, failed, err
}

func (d Dir) names() ([]string, error) {
	// A FIFO or a link in the spool's place must not be opened: it would
	// block, or lead elsewhere.
	fi, err := os.Lstat(d.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err == nil && !fi.IsDir() {
		return nil, fmt.Errorf("reading spool %s: %w", d.path, &fs.PathError{Op: "refusing", Path: d.path, Err: errors.New("not a folder")})
	}
	f, err := os.Open(d.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading spool %s: %w", d.path, err)
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, fmt.Errorf("reading spool %s: %w", d.path, err)
	}
	slices.Sort(names)
	return names, nil
}

// Read returns a record's content; fs.ErrNotExist when another process
// applied and removed it meanwhile.
func (d Dir) Read(e Entry) ([]byte, error) {
	return fsafe.ReadFile(e.path, MaxRecord)
}

// remove deletes an applied record; one already gone is no error.
func (d Dir) remove(e Entry) error {
	return fsafe.Remove(e.path)
}

// putAside renames a record that cannot be applied out of the queue, so it
// no longer holds up the records behind it.
func (d Dir) putAside(e Entry) error {
	return os.Rename(e.path, strings.TrimSuffix(e.path, ext)+setAside)
}

// isTemp reports whether name is a temporary file of Put.
func isTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, ext+".")
}

// purgeWait bounds how long shred waits for a record being written to get
// its content: Put writes it in one write right after creating the file.
const purgeWait = time.Second

// shred overwrites and deletes every record, waiting, set aside or being
// written, whose content match accepts (fsafe.Shred), and returns how many
// went. The caller holds the drain lock, so that no process applies or sets
// aside a record while it goes. A record being written whose file is still
// empty is waited for (purgeWait); one that matches is shredded before Put
// renames it, and that Put fails. A record that cannot be read is left, and
// said.
func (d Dir) shred(match func(data []byte) bool) (int, error) {
	var (
		gone     int
		errs     []error
		deadline = time.Now().Add(purgeWait)
	)
	for {
		pending := false
		errs = errs[:0]
		// Held records first: one queued meanwhile is then met in the queue.
		for _, dir := range []Dir{d.live(), d} {
			n, p, err := dir.purge(match)
			gone += n
			pending = pending || p
			if err != nil {
				errs = append(errs, err)
			}
		}
		if !pending || time.Now().After(deadline) {
			return gone, errors.Join(errs...)
		}
		time.Sleep(2 * time.Millisecond) // a Put is between two system calls
	}
}

// purge is one pass of shred over one folder: it returns how many records
// went, and whether one being written must be looked at again.
func (d Dir) purge(match func(data []byte) bool) (gone int, pending bool, _ error) {
	names, err := d.names()
	if err != nil {
		return 0, false, err
	}
	var errs []error
	for _, n := range names {
		temp := isTemp(n)
		if !temp && (strings.HasPrefix(n, ".") || !strings.HasSuffix(n, ext) && !strings.HasSuffix(n, setAside)) {
			continue
		}
		p := filepath.Join(d.path, n)
		data, err := fsafe.ReadFile(p, MaxRecord)
		if errors.Is(err, fs.ErrNotExist) {
			pending = pending || temp // renamed into place meanwhile: look again
			continue
		}
		if err == nil && temp && len(data) == 0 {
			// Created, not written yet; or written and renamed into the
			// queue since it was read: look again.
			fi, serr := os.Lstat(p)
			if errors.Is(serr, fs.ErrNotExist) || serr == nil && time.Since(fi.ModTime()) < staleTemp {
				pending = true
			}
			continue
		}
		hit := err == nil && match(data)
		if hit && temp {
			// Take it from its writer first: once renamed here, the
			// writer's rename into the queue fails.
			if rerr := os.Rename(p, p+".forget"); errors.Is(rerr, fs.ErrNotExist) {
				pending = true // it reached the queue meanwhile
				continue
			} else if rerr != nil {
				err = rerr
			}
			p += ".forget"
		}
		if hit && err == nil {
			if err = fsafe.Shred(p); err == nil {
				gone++
			}
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("spooled record %s: %w", n, err))
		}
	}
	return gone, pending, errors.Join(errs...)
}

// Waiting lists the records not applied yet, in arrival order: those in
// the queue and those held by processes applying them now (or that ended
// without it). Unlike List it changes nothing in the folder: it is what a
// command that only reads shows as pending.
func (d Dir) Waiting() ([]Entry, error) {
	seen := map[string]bool{}
	var out []Entry
	// Held records first: one queued between the two readings is then met
	// in both, never in neither.
	for _, dir := range []Dir{d.live(), d} {
		names, err := dir.names()
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			id := strings.TrimSuffix(n, ext)
			if strings.HasPrefix(n, ".") || !strings.HasSuffix(n, ext) || seen[id] {
				continue
			}
			seen[id] = true
			out = append(out, Entry{ID: id, path: filepath.Join(dir.path, n)})
		}
	}
	slices.SortFunc(out, func(a, b Entry) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}
