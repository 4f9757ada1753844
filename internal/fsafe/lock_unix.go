//go:build unix

package fsafe

import (
	"errors"
	"os"
	"syscall"
)

// TryLock takes an exclusive lock (flock) on f without waiting. It reports
// false, with no error, when another process holds it; closing f (or the
// process ending, however) releases it.
func TryLock(f *os.File) (bool, error) {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) || errors.Is(err, syscall.EINTR) {
		return false, nil
	}
	return err == nil, err
}

// OpenLock opens (creating it, mode 0600) a file to lock, refusing a link
// at path.
func OpenLock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
}
