package spool

import (
	"path/filepath"

	"github.com/memhq/mem/internal/fsafe"
)

// TryLock takes the spool's drain lock if no other process holds it, so
// that one process at a time applies the spool; closing the file (or the
// process ending, however) releases it.
func (d Dir) TryLock() (release func(), ok bool) {
	if d.ensure() != nil {
		return nil, false
	}
	f, err := fsafe.OpenLock(filepath.Join(d.path, lockName))
	if err != nil {
		return nil, false
	}
	if held, err := fsafe.TryLock(f); !held || err != nil {
		f.Close()
		return nil, false
	}
	return func() { f.Close() }, true
}
