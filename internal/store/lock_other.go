//go:build !unix && !windows

package store

import (
	"context"
	"database/sql"
)

// fileLocker does nothing where flock is missing; concurrent first opens
// there may fail once and succeed on the next call.
type fileLocker struct{ path string }

func (l *fileLocker) Lock(context.Context, *sql.DB) error   { return nil }
func (l *fileLocker) Unlock(context.Context, *sql.DB) error { return nil }
