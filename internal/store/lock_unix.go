//go:build unix

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// fileLocker is a goose Locker that holds an exclusive flock on a file beside
// the database while migrations run, so concurrent processes migrate one
// after another and the later ones find nothing pending.
type fileLocker struct {
	path string
	f    *os.File
}

func (l *fileLocker) Lock(ctx context.Context, _ *sql.DB) error {
	f, err := os.OpenFile(l.path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("opening migration lock %s: %w", l.path, mapOSError(err))
	}
	// flock has no timeout; poll the non-blocking form until the context ends.
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			l.f = f
			return nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return fmt.Errorf("locking %s: %w", l.path, err)
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
	err := l.f.Close() // closing releases the flock
	l.f = nil
	return err
}
