//go:build unix

package summarize

import (
	"errors"
	"syscall"
)

// processExists sends signal 0: ESRCH means there is no such process.
func processExists(pid int) bool {
	return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
