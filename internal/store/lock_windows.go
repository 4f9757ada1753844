//go:build windows

package store

import (
	"os"

	"github.com/memhq/mem/internal/fsafe"
)

// tryLock takes an exclusive LockFileEx lock on f without waiting: false
// when another process holds it.
func tryLock(f *os.File) (bool, error) { return fsafe.TryLock(f) }
