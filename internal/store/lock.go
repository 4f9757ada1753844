package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"time"

	"github.com/memhq/mem/internal/fsafe"
)

// fileLocker holds an exclusive lock (flock, on Windows LockFileEx) on a
// file beside the database while a process migrates it, so concurrent
// processes migrate one after another and the later ones find nothing
// pending.
type fileLocker struct {
	path string
	f    *os.File
}

func (l *fileLocker) Lock(ctx context.Context, _ *sql.DB) error {
	f, err := os.OpenFile(l.path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("opening migration lock %s: %w", l.path, mapOSError(err))
	}
	// The locks have no timeout; poll the non-blocking form until the
	// context ends.
	for {
		held, err := fsafe.TryLock(f)
		if err != nil {
			f.Close()
			return fmt.Errorf("locking %s: %w", l.path, err)
		}
		if held {
			l.f = f
			return nil
		}
		select {
		case <-ctx.Done():
			f.Close()
			return fmt.Errorf("waiting for migration lock %s: %w", l.path, ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
}

func (l *fileLocker) Unlock(context.Context, *sql.DB) error {
	if l.f == nil {
		return nil
	}
	err := l.f.Close() // closing releases the lock
	l.f = nil
	return err
}
