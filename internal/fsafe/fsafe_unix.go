//go:build unix

package fsafe

import (
	"os"
	"syscall"
)

// openNonBlocking opens path read-only with O_NONBLOCK, so opening a FIFO
// with no writer returns at once instead of waiting forever; the caller
// refuses anything but a regular file, for which the flag changes nothing.
func openNonBlocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// openAppendNonBlocking opens path write-only for appending with
// O_NONBLOCK, so a FIFO with no reader fails at once (ENXIO) instead of
// waiting for one, and O_NOFOLLOW, so a link is refused, not written
// through.
func openAppendNonBlocking(path string, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, perm)
}

// openWriteNonBlocking opens an existing path write-only, at its start,
// refusing a link (O_NOFOLLOW) and never waiting on a FIFO (O_NONBLOCK).
func openWriteNonBlocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
}

// syncDir makes a rename in dir durable; failure only costs durability.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// links returns how many names the open file f has (fi is its Stat).
func links(_ *os.File, fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
