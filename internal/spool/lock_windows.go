//go:build windows

package spool

import (
	"os"
	"path/filepath"

	"github.com/memhq/mem/internal/fsafe"
)

// TryLock takes the spool's drain lock (LockFileEx) if no other process
// holds it, so that one process at a time applies the spool; closing the
// file (or the process ending, however) releases it.
func (d Dir) TryLock() (release func(), ok bool) {
	if d.ensure() != nil {
		return nil, false
	}
	f, err := os.OpenFile(filepath.Join(d.path, lockName), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, false
	}
	if ok, err := fsafe.TryLock(f); !ok || err != nil {
		f.Close()
		return nil, false
	}
	return func() { f.Close() }, true
}
